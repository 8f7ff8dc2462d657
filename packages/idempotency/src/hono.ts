import type { Tx } from '@surety/db';
import type { Context, MiddlewareHandler } from 'hono';
import { describingHeaders, PROBLEM_CONTENT_TYPE, problemBody } from './http.js';
import type { PhasedOperation } from './phases.js';
import { type AdapterOptions, errorAnswer, type RunResult, runIdempotent } from './run.js';
import type { StoredResponse } from './types.js';

/** The options of the Hono middleware: those of every adapter, and whether the key is required. */
export interface HonoIdempotencyOptions extends AdapterOptions<Context> {
  /** @default true */
  required?: boolean;
}

/**
 * Variables this middleware sets: `c.get('tx')`. Hono types them on the routes behind the
 * middleware only, so the transaction is typed as present exactly where it is.
 */
export type IdempotencyVariables = { tx: Tx; idempotencyKey: string | undefined };

function toResponse(result: RunResult, instance: string): Response {
  if (result.kind === 'problem') {
    const { problem } = result;
    return new Response(problemBody(problem, instance), {
      status: problem.status,
      headers: { ...problem.headers, 'content-type': PROBLEM_CONTENT_TYPE },
    });
  }
  const { response } = result;
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
 * rolled back (unless `errorResponse` stores it); a returned 2xx/4xx is committed with the key and
 * replayed; a 5xx is rolled back.
 * @example
 * app.post('/payments', idempotency({ engine }), async (c) => {
 *   await c.get('tx').query('insert …');
 *   return c.json(payment, 201);
 * });
 */
export function idempotency(
  options: HonoIdempotencyOptions,
): MiddlewareHandler<{ Variables: IdempotencyVariables }> {
  const required = options.required ?? true;
  return async (c, next) => {
    const url = new URL(c.req.url);
    const result = await runIdempotent({
      options,
      request: c,
      header: c.req.header('idempotency-key'),
      required,
      fingerprintInput: async () => ({
        method: c.req.method,
        url: url.pathname + url.search,
        body: await readBody(c),
      }),
      handler: async (tx, key): Promise<StoredResponse> => {
        c.set('idempotencyKey', key);
        c.set('tx', tx);
        await next();
        // Hono catches handler errors and renders them; roll back rather than store them, unless
        // errorResponse makes an answer to store of the error.
        if (c.error) {
          const stored = errorAnswer({ options, error: c.error, request: c });
          if (stored) return stored;
          throw c.error;
        }
        const res = c.res;
        return { status: res.status, headers: describingHeaders(res.headers), body: await res.text() };
      },
    });
    // Replaced, not merged, once the route may have run: Hono would otherwise keep the handler's
    // headers on our answer. A refused key is merged as before (headers set by outer middleware stay).
    if (result.kind === 'response' || result.source !== 'key') c.res = undefined;
    c.res = toResponse(result, url.pathname);
  };
}

/**
 * A handler that runs a phased operation (docs/side-effects.md): `input` validates the request and
 * makes the operation's input (throw to refuse it), the operation runs its phases and its answer
 * is sent. The key is required.
 * @example
 * app.post('/payments', phased({ engine }, createPayment, async (c) => c.req.json()));
 */
export function phased<I>(
  options: AdapterOptions<Context>,
  operation: PhasedOperation<I>,
  input: (c: Context, key: string) => I | Promise<I>,
): (c: Context) => Promise<Response> {
  return async (c) => {
    const url = new URL(c.req.url);
    const result = await runIdempotent({
      options,
      request: c,
      header: c.req.header('idempotency-key'),
      required: true,
      fingerprintInput: async () => ({
        method: c.req.method,
        url: url.pathname + url.search,
        body: await readBody(c),
      }),
      phased: { operation, input: (key) => input(c, key) },
      handler: () => Promise.reject(new TypeError('unreachable: a phased route has no handler')),
    });
    return toResponse(result, url.pathname);
  };
}

export default idempotency;
