/**
 * What a route declares about itself in its `config`, read in one place: the idempotency layer
 * (`idempotency`, declared by @surety/idempotency/fastify), the precondition checks
 * (`routePreconditions` below) and the OpenAPI problem statuses (`documentProblems` in openapi.ts).
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

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How the route treats preconditions (see `PreconditionNeed`); none when absent. */
    precondition?: PreconditionNeed;
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
  return require
    ? checkPreconditions(request, reply, current, { require: true })
    : checkPreconditions(request, reply, current);
}
