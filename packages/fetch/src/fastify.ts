import type { FastifyPluginAsync, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { type Clock, systemClock } from './clock.js';
import { DeadlineExceededError } from './errors.js';
import { DEADLINE_HEADER } from './headers.js';
import { deadlineProblem, PROBLEM_CONTENT_TYPE, type ReadDeadlineOptions, readDeadline } from './server.js';

/** The caller's deadline as the handler sees it. */
export interface RequestDeadline {
  /** Aborts, with a `DeadlineExceededError` as reason, when the caller stops waiting. */
  readonly signal: AbortSignal;
  /** The budget the request arrived with, in milliseconds (after `reserveMs`). */
  readonly budgetMs: number;
  /** Milliseconds left, never negative: pass it as `deadline` to downstream `@surety/fetch` calls. */
  remaining(): number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's deadline, from the `Surety-Timeout-Ms` header; `undefined` when it sent none. */
    deadline: RequestDeadline | undefined;
  }
}

/** Options of the Fastify `deadline` plugin. */
export interface FastifyDeadlineOptions extends ReadDeadlineOptions {
  /** The status answered when the deadline passes first: 504, as gRPC gateways do, or 503. @default 504 */
  status?: 503 | 504;
  /** The time source. @default systemClock */
  clock?: Clock;
}

interface DeadlineState {
  timer: unknown;
  expired: boolean;
}

const states = new WeakMap<FastifyRequest, DeadlineState>();

const plugin: FastifyPluginAsync<FastifyDeadlineOptions> = async (fastify, options) => {
  const clock = options.clock ?? systemClock;
  const status = options.status ?? 504;
  const header = (options.header ?? DEADLINE_HEADER).toLowerCase();
  const read: ReadDeadlineOptions = { ...options, header };
  fastify.decorateRequest('deadline', undefined);

  const answer = (request: FastifyRequest, reply: FastifyReply, budgetMs: number) => {
    if (reply.sent || reply.raw.headersSent) return;
    reply
      .code(status)
      .type(PROBLEM_CONTENT_TYPE)
      .send(deadlineProblem({ deadlineMs: budgetMs, instance: request.url, status }));
  };

  fastify.addHook('onRequest', async (request, reply) => {
    const budgetMs = readDeadline(request.headers, read);
    if (budgetMs === undefined) return;
    const controller = new AbortController();
    if (budgetMs === 0) {
      // The caller has already given up: doing the work would only waste it.
      controller.abort(new DeadlineExceededError(0));
      request.deadline = { signal: controller.signal, budgetMs, remaining: () => 0 };
      states.set(request, { timer: undefined, expired: true });
      answer(request, reply, budgetMs);
      return reply;
    }
    const expiresAt = clock.now() + budgetMs;
    const state: DeadlineState = { timer: undefined, expired: false };
    state.timer = clock.setTimeout(() => {
      state.expired = true;
      controller.abort(new DeadlineExceededError(budgetMs));
      answer(request, reply, budgetMs);
    }, budgetMs);
    states.set(request, state);
    request.deadline = {
      signal: controller.signal,
      budgetMs,
      remaining: () => Math.max(0, expiresAt - clock.now()),
    };
    return undefined;
  });

  const clear = async (request: FastifyRequest) => {
    const state = states.get(request);
    if (state?.timer !== undefined) clock.clearTimeout(state.timer);
  };
  fastify.addHook('onResponse', clear);
  fastify.addHook('onRequestAbort', clear);

  // A handler still running when the 504 went out would try to answer too; what it returns (or throws)
  // afterwards is dropped here instead of reaching Fastify as "Reply was already sent".
  fastify.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function deadlineBoundHandler(request, reply) {
      const out = handler.call(this, request, reply) as unknown;
      if (request.deadline === undefined || typeof (out as Promise<unknown> | null)?.then !== 'function') {
        return out;
      }
      const late = () => states.get(request)?.expired === true && reply.sent;
      return (out as Promise<unknown>).then(
        (payload) => (late() ? undefined : payload),
        (error: unknown) => {
          if (late()) return undefined;
          throw error;
        },
      );
    } as RouteHandlerMethod;
  });
};

// What fastify-plugin does, without the dependency: the hooks apply to the whole application rather than
// to an encapsulated child context.
Object.assign(plugin, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: '@surety/fetch/deadline',
});

/**
 * The Fastify side of deadline propagation. Reads the caller's remaining time from `Surety-Timeout-Ms`,
 * gives the handler `request.deadline` (an AbortSignal and `remaining()`), and when the time runs out
 * before the handler has answered, answers 504 `application/problem+json` with code
 * `SURETY_DEADLINE_EXCEEDED`. A request that arrives with 0 ms left is answered at once. Register it
 * before the routes it should bound. Requests without the header are left alone unless `defaultMs` is set.
 * @default status 504, maxMs 300000, reserveMs 0
 * @example
 * await app.register(deadline, { reserveMs: 5 });
 * app.get('/v1/orders/:id', async (req) => {
 *   const res = await fetch(inventoryUrl, { deadlineMs: req.deadline?.remaining(), signal: req.deadline?.signal });
 *   return res.json();
 * });
 */
export const deadline = plugin;
export default deadline;
