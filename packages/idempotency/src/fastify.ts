import type { Tx } from '@surety/db';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { describingHeaders, PROBLEM_CONTENT_TYPE, problemBody } from './http.js';
import type { PhasedOperation } from './phases.js';
import { type AdapterOptions, errorAnswer, type RunResult, requireTx, runIdempotent } from './run.js';
import type { StoredResponse } from './types.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The transaction the idempotency record commits in, on routes with `config.idempotency`;
     * `undefined` on every other route. Inside an idempotent route, `txOf(request)` gives it typed
     * as present.
     */
    tx: Tx | undefined;
    /** The validated Idempotency-Key of this request, if one was sent. */
    idempotencyKey: string | undefined;
  }
  interface FastifyContextConfig {
    /**
     * Turns the idempotency layer on for a route; `{ required: false }` makes the key optional.
     * `{ phased: operation }` runs a phased operation (the key is then required): the route's
     * handler validates the request and returns the operation's input, and the operation answers.
     */
    // biome-ignore lint/suspicious/noExplicitAny: the input's type is the operation's own
    idempotency?: boolean | { required?: boolean; phased?: PhasedOperation<any> };
  }
}

/** The options of the Fastify plugin: those of every adapter (`tenant`, `errorResponse`, `onOutcome`). */
export interface FastifyIdempotencyOptions extends AdapterOptions<FastifyRequest> {}

/**
 * The transaction of an idempotent route (`config: { idempotency: … }`), typed as present. Throws
 * NoTransactionError (`SURETY_IDEMPOTENCY_NO_TRANSACTION`) on a route without the layer, where a
 * write would otherwise run outside the key's transaction.
 * @example
 * const { rows } = await txOf(request).query('insert … returning *', [...]);
 */
export const txOf = (request: FastifyRequest): Tx => requireTx(request.tx);

/** The reply was sent by someone else (a deadline or timeout hook) while the handler ran. */
class AnsweredElsewhere extends Error {}

function send(reply: FastifyReply, result: RunResult, instance: string): FastifyReply {
  if (result.kind === 'problem') {
    const { problem } = result;
    return reply
      .code(problem.status)
      .headers(problem.headers ?? {})
      .type(PROBLEM_CONTENT_TYPE)
      .send(problemBody(problem, instance));
  }
  reply.code(result.response.status).headers(result.response.headers);
  return reply.send(result.response.body);
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
  fastify.decorateRequest('tx', undefined);
  fastify.decorateRequest('idempotencyKey', undefined);

  fastify.addHook('onRoute', (route) => {
    const setting = route.config?.idempotency;
    if (!setting) return;
    const required = typeof setting === 'object' ? setting.required !== false : true;
    const handler = route.handler as RouteHandlerMethod;
    const operation = typeof setting === 'object' ? setting.phased : undefined;

    route.handler = async function idempotentHandler(request, reply) {
      try {
        const result = await runIdempotent({
          options,
          request,
          header: request.headers['idempotency-key'],
          required,
          fingerprintInput: () => ({ method: request.method, url: request.url, body: request.body }),
          phased: operation && {
            operation,
            input: (key) => {
              request.idempotencyKey = key;
              return handler.call(this, request, reply);
            },
          },
          handler: async (tx, key) => {
            request.idempotencyKey = key;
            request.tx = tx;
            let payload: unknown;
            try {
              payload = await handler.call(this, request, reply);
            } catch (error) {
              const stored = errorAnswer({ options, error, request });
              if (stored) return stored;
              throw error;
            }
            // Something else answered while the handler ran (a deadline plugin's 504, a timeout): the
            // client was told the outcome is unknown, so roll back and store nothing; its retry runs again.
            if (reply.sent) throw new AnsweredElsewhere();
            return capture(reply, payload);
          },
        });
        // A phased run that outlived the caller's deadline (a 504 was sent): its phases are kept.
        if (operation && reply.sent) return reply;
        return send(reply, result, request.url);
      } catch (error) {
        if (error instanceof AnsweredElsewhere) return reply;
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
 * transaction with `txOf(request)` and must return its payload (not call `reply.send`), so the
 * response can be stored and committed before a byte is sent. If something else answers while the
 * handler runs (a deadline plugin's 504), the transaction is rolled back and nothing is stored.
 * @example
 * await app.register(idempotency, { engine, tenant: (req) => req.tenant });
 * app.post('/v1/payments', { config: { idempotency: true } }, async (req, reply) => {
 *   const row = await txOf(req).query('insert … returning *', [...]);
 *   reply.code(201);
 *   return row.rows[0];
 * });
 */
export const idempotency = plugin;
export default idempotency;
