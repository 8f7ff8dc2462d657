import type { Tx } from '@surety/db';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
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

declare module 'fastify' {
  interface FastifyRequest {
    /** The transaction the idempotency record commits in; do the business write on it. */
    tx: Tx;
    /** The validated Idempotency-Key of this request, if one was sent. */
    idempotencyKey: string | undefined;
  }
  interface FastifyContextConfig {
    /** Turns the idempotency layer on for a route; `{ required: false }` makes the key optional. */
    idempotency?: boolean | { required?: boolean };
  }
}

export interface FastifyIdempotencyOptions {
  engine: Idempotency;
  /** The tenant a request belongs to; keys are scoped by it. @default () => "" */
  tenant?: (request: FastifyRequest) => string;
  /**
   * Turns a thrown error into a response to store, for errors that are a final answer to the
   * operation (a decline, out of stock): return it with a 4xx status and it is committed with the
   * key and replayed. Return undefined to roll back and rethrow (the default for every error).
   */
  errorResponse?: (error: unknown, request: FastifyRequest) => StoredResponse | undefined;
  /** Called once per keyed request with what happened (for metrics). */
  onOutcome?: (
    outcome: 'executed' | 'replayed' | 'in_flight' | 'mismatch' | 'unavailable',
    request: FastifyRequest,
  ) => void;
}

/** The reply was sent by someone else (a deadline or timeout hook) while the handler ran. */
class AnsweredElsewhere extends Error {}

function send(reply: FastifyReply, response: StoredResponse | Problem, instance: string): FastifyReply {
  if (isProblem(response)) {
    return reply
      .code(response.status)
      .headers(response.headers ?? {})
      .type(PROBLEM_CONTENT_TYPE)
      .send(problemBody(response, instance));
  }
  reply.code(response.status).headers(response.headers);
  return reply.send(response.body);
}

/** Serialises what a handler returned exactly as Fastify would, so the stored bytes are the sent bytes. */
function capture(reply: FastifyReply, payload: unknown): StoredResponse {
  let body: string;
  if (payload === undefined || payload === null) {
    body = '';
  } else if (typeof payload === 'string') {
    body = payload;
    if (!reply.hasHeader('content-type')) reply.type('text/plain; charset=utf-8');
  } else if (Buffer.isBuffer(payload)) {
    throw new TypeError('idempotent routes must return JSON or a string, not a Buffer');
  } else {
    body = String(reply.serialize(payload));
    if (!reply.hasHeader('content-type')) reply.type('application/json; charset=utf-8');
  }
  return { status: reply.statusCode, headers: describingHeaders(reply.getHeaders()), body };
}

const plugin: FastifyPluginAsync<FastifyIdempotencyOptions> = async (fastify, options) => {
  const { engine } = options;
  const tenantOf = options.tenant ?? (() => '');
  fastify.decorateRequest('tx', null as unknown as Tx);
  fastify.decorateRequest('idempotencyKey', undefined);

  fastify.addHook('onRoute', (route) => {
    const setting = route.config?.idempotency;
    if (!setting) return;
    const required = typeof setting === 'object' ? setting.required !== false : true;
    const handler = route.handler as RouteHandlerMethod;

    route.handler = async function idempotentHandler(request, reply) {
      const read = readKey(request.headers['idempotency-key'], required);
      if ('problem' in read) return send(reply, read.problem, request.url);
      request.idempotencyKey = read.key;

      const run = async (tx: Tx): Promise<StoredResponse> => {
        request.tx = tx;
        let payload: unknown;
        try {
          payload = await handler.call(this, request, reply);
        } catch (error) {
          const stored = options.errorResponse?.(error, request);
          if (stored && stored.status >= 400 && stored.status < 500) {
            reply.code(stored.status);
            return stored;
          }
          throw error;
        }
        // Something else answered while the handler ran (a deadline plugin's 504, a timeout): the
        // client was told the outcome is unknown, so roll back and store nothing; its retry runs again.
        if (reply.sent) throw new AnsweredElsewhere();
        return capture(reply, payload);
      };

      try {
        if (read.key === undefined) {
          // Key optional and absent: still one transaction, so the handler code is the same.
          return send(reply, await engine.transact(run), request.url);
        }
        const outcome = await engine.execute(
          {
            tenant: tenantOf(request),
            key: read.key,
            fingerprint: fingerprint({ method: request.method, url: request.url, body: request.body }),
          },
          run,
        );
        options.onOutcome?.(outcome.kind, request);
        return send(
          reply,
          outcome.kind === 'executed' ? outcome.response : outcomeResponse(outcome),
          request.url,
        );
      } catch (error) {
        if (error instanceof AnsweredElsewhere) return reply;
        const problem = engineErrorProblem(error);
        if (problem) {
          options.onOutcome?.('unavailable', request);
          return send(reply, problem, request.url);
        }
        throw error;
      }
    };
  });
};

// What fastify-plugin does, without depending on it (an Express or Hono user would have to install it):
// the hooks apply to the registering scope rather than an encapsulated child context, Fastify shows the
// name, and refuses to register the plugin on a major version it was not written for.
Object.assign(plugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: '@surety/idempotency',
  [Symbol.for('plugin-meta')]: { name: '@surety/idempotency', fastify: '5.x' },
});

/**
 * The Fastify plugin. Routes opt in with `config: { idempotency: true }`; their handler gets the
 * transaction as `request.tx` and must return its payload (not call `reply.send`), so the response
 * can be stored and committed before a byte is sent. If something else answers while the handler
 * runs (a deadline plugin's 504), the transaction is rolled back and nothing is stored.
 * @example
 * await app.register(idempotency, { engine, tenant: (req) => req.tenant });
 * app.post('/v1/payments', { config: { idempotency: true } }, async (req, reply) => {
 *   const row = await req.tx.query('insert … returning *', [...]);
 *   reply.code(201);
 *   return row.rows[0];
 * });
 */
export const idempotency = plugin;
export default idempotency;
