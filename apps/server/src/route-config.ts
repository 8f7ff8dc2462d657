/**
 * What a route declares about itself in its `config`, read in one place: the idempotency layer
 * (`idempotency`, declared by @surety/idempotency/fastify), the precondition checks
 * (`routePreconditions` below) and the API document (`describeRoute` in openapi-operation.ts: its
 * header parameters, response headers and problem codes all come from here).
 * No hook looks at a route's path.
 */
import type { CurrentState } from '@surety/conditional';
import { checkPreconditions } from '@surety/conditional/fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * How a route treats RFC 9110 preconditions:
 * - `required`: a write that needs `If-Match` (428 without it, 412 when stale);
 * - `to-replace`: a create-or-replace PUT: creating needs none, replacing needs `If-Match`
 *   (`If-None-Match: *` refuses to replace);
 * - `optional`: a write that honours `If-Match` when sent (412) and runs without it;
 * - `read`: a read that answers 304 to a matching `If-None-Match`.
 */
export type PreconditionNeed = 'required' | 'to-replace' | 'optional' | 'read';

/**
 * A response header a route's success answers carry, documented in /openapi.json (`location` on a
 * 201 only). Headers the layers add (Idempotent-Replayed, Retry-After, WWW-Authenticate) follow
 * from `idempotency` and the statuses, and are not listed here.
 */
export type SentHeader = 'etag' | 'last-modified' | 'location';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route treats preconditions (see `PreconditionNeed`); none when absent. */
    precondition?: PreconditionNeed;
    /** The validators and links its success answers carry (see `SentHeader`). @default [] */
    sends?: readonly SentHeader[];
    /**
     * The problem codes the route's own code answers with (`out_of_stock`), beyond those its
     * config, body, parameters and authentication imply; each must be in problem-codes.ts.
     * @default []
     */
    problems?: readonly string[];
  }
}

/**
 * Evaluates the request's preconditions against the resource's current state, requiring `If-Match`
 * as the route's `config.precondition` says. Same answer as `checkPreconditions` (which it calls).
 * @example
 * const check = routePreconditions(request, reply, current(row));
 * if (!check.proceed) return check.payload;
 */
export function routePreconditions(request: FastifyRequest, reply: FastifyReply, current: CurrentState) {
  const need = request.routeOptions.config.precondition;
  const require = need === 'required' || (need === 'to-replace' && current.exists);
  return checkPreconditions(request, reply, require ? { current, require: true } : { current });
}
