import type { Tx } from '@surety/db';
import type { Context, MiddlewareHandler } from 'hono';
import type { Idempotency, StoredResponse } from './engine.js';
import { fingerprint } from './fingerprint.js';
import {
  describingHeaders,
  engineErrorProblem,
  isProblem,
  outcomeResponse,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  problemBody,
  readKey,
} from './http.js';

export interface HonoIdempotencyOptions {
  engine: Idempotency;
  /** @default () => "" */
  tenant?: (c: Context) => string;
  /** @default true */
  required?: boolean;
}

/** Variables this middleware sets: `c.get('tx')`. */
export type IdempotencyVariables = { tx: Tx; idempotencyKey: string | undefined };

function toResponse(response: StoredResponse | Problem, instance: string): Response {
  if (isProblem(response)) {
    return new Response(problemBody(response, instance), {
      status: response.status,
      headers: { ...response.headers, 'content-type': PROBLEM_CONTENT_TYPE },
    });
  }
  return new Response(response.body === '' ? null : response.body, {
    status: response.status,
    headers: response.headers,
  });
}

async function readBody(c: Context): Promise<unknown> {
  const type = c.req.header('content-type') ?? '';
  const text = await c.req.text();
  if (text === '') return undefined;
  if (/[/+]json\b/i.test(type)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Hono middleware. The handler finds the transaction with `c.get('tx')`. A handler that throws is
 * rolled back; a returned 2xx/4xx is committed with the key and replayed; a 5xx is rolled back.
 * @example
 * app.post('/payments', idempotency({ engine }), async (c) => {
 *   await c.get('tx').query('insert …');
 *   return c.json(payment, 201);
 * });
 */
export function idempotency(
  options: HonoIdempotencyOptions,
): MiddlewareHandler<{ Variables: IdempotencyVariables }> {
  const { engine } = options;
  const required = options.required ?? true;
  const tenantOf = options.tenant ?? (() => '');
  return async (c, next) => {
    const instance = new URL(c.req.url).pathname;
    const read = readKey(c.req.header('idempotency-key'), required);
    if ('problem' in read) {
      c.res = toResponse(read.problem, instance);
      return;
    }
    c.set('idempotencyKey', read.key);
    const run = async (tx: Tx): Promise<StoredResponse> => {
      c.set('tx', tx);
      await next();
      // Hono catches handler errors and renders them; roll back rather than store them.
      if (c.error) throw c.error;
      const res = c.res;
      return { status: res.status, headers: describingHeaders(res.headers), body: await res.text() };
    };
    try {
      let response: StoredResponse | Problem;
      if (read.key === undefined) {
        response = await engine.transact(run);
      } else {
        const url = new URL(c.req.url);
        const outcome = await engine.execute(
          {
            tenant: tenantOf(c),
            key: read.key,
            fingerprint: fingerprint({
              method: c.req.method,
              url: url.pathname + url.search,
              body: await readBody(c),
            }),
          },
          run,
        );
        response = outcome.kind === 'executed' ? outcome.response : outcomeResponse(outcome);
      }
      c.res = undefined;
      c.res = toResponse(response, instance);
    } catch (error) {
      const problem = engineErrorProblem(error);
      if (!problem) throw error;
      c.res = undefined;
      c.res = toResponse(problem, instance);
    }
  };
}

export default idempotency;
