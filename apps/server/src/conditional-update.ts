/**
 * The service's conditional update, written once: the request's preconditions against the version
 * read, the route's write at that same version, the stale-write problem when the write matched no
 * row, and the new version's validators on the answer. Every versioned update route goes through
 * `conditionalUpdate`; reads use `currentState` and `sendValidators` for the same headers.
 */
import { type CurrentState, staleWriteProblem, versionETag } from '@surety/conditional';
import { setValidators } from '@surety/conditional/fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fromConditional } from './problem.js';
import { routePreconditions } from './route-config.js';

/** What a resource's validators are made of: its version, and its last change where it sends one. */
export interface Versioned {
  version: number;
  /** Sent as `Last-Modified` and compared with `If-Unmodified-Since`. @default undefined (neither) */
  lastModified?: Date | undefined;
}

/** The state preconditions are evaluated against: undefined is a resource that does not exist. */
export function currentState(current: Versioned | undefined): CurrentState {
  return {
    exists: current !== undefined,
    etag: current ? versionETag(current.version) : undefined,
    lastModified: current?.lastModified,
  };
}

/** Sets `ETag` (and `Last-Modified` when the resource keeps one) for a version. */
export function sendValidators(reply: FastifyReply, v: Versioned): void {
  setValidators(reply, { etag: versionETag(v.version), lastModified: v.lastModified });
}

/** The input of {@link conditionalUpdate}. */
export interface ConditionalUpdate<R> {
  /**
   * The resource's version as read in the request's transaction; undefined when it does not exist
   * (a create-or-replace PUT, which then needs `create`).
   */
  current: Versioned | undefined;
  /**
   * Runs once the preconditions hold: the route's own checks (they throw their problem), then the
   * write conditional on `ifVersion`, the version the preconditions were evaluated on. Answers the
   * new row, or undefined when another request wrote first.
   */
  update: (ifVersion: number) => Promise<R | undefined>;
  /** When `current` is undefined: the insert, undefined when another request created it first. */
  create?: () => Promise<R | undefined>;
  /** The written row's version (and last change), sent as its validators. */
  versionOf: (row: R) => Versioned;
}

/**
 * What {@link conditionalUpdate} did, tagged `kind`: `stopped` when a precondition answered (304,
 * 400, 412 or 428: status and headers are set on the reply; return `payload` from the handler),
 * otherwise the row `updated` or `created`, its validators set on the reply.
 */
export type ConditionalUpdateResult<R> =
  | { kind: 'stopped'; payload: string }
  | { kind: 'updated' | 'created'; row: R };

/**
 * Preconditions (as the route's `config.precondition` says), then the conditional write. A write
 * that matches no row means the resource changed or appeared since it was read: 412 when the
 * request sent a precondition that held, 409 `version_conflict` when it sent none.
 * @example
 * const row = await orders.get(txOf(request), { tenant, id });
 * if (!row) throw notFound('order');
 * const out = await conditionalUpdate(request, reply, {
 *   current: versionOf(row),
 *   update: (ifVersion) => orders.update(txOf(request), { tenant, id, ifVersion, fields, now }),
 *   versionOf,
 * });
 * if (out.kind === 'stopped') return out.payload;
 * return toOrder(out.row);
 */
export async function conditionalUpdate<R>(
  request: FastifyRequest,
  reply: FastifyReply,
  input: ConditionalUpdate<R>,
): Promise<ConditionalUpdateResult<R>> {
  const { current, create } = input;
  if (current === undefined && create === undefined)
    throw new TypeError('conditionalUpdate: a resource that does not exist needs `create`');
  const check = routePreconditions(request, reply, currentState(current));
  if (!check.proceed) return { kind: 'stopped', payload: check.payload };
  const row = current === undefined ? await create!() : await input.update(current.version);
  if (row === undefined) throw fromConditional(staleWriteProblem(check.result.conditional));
  sendValidators(reply, input.versionOf(row));
  return { kind: current === undefined ? 'created' : 'updated', row };
}

/** The input of {@link conditionalDelete}. */
export interface ConditionalDelete {
  /** The resource's version as read. */
  current: Versioned;
  /**
   * The delete: at `ifVersion` when the request sent a precondition that held (the version it held
   * on: a change committed in between makes it a 412, not the deletion of what the client never
   * saw), unconditional otherwise. Answers whether a row was deleted.
   */
  remove: (ifVersion: number | undefined) => Promise<boolean>;
}

/**
 * Preconditions (a DELETE's are `optional`: If-Match honoured, not required), then the delete; a
 * delete that matches no row is a 412.
 * @example
 * const out = await conditionalDelete(request, reply, {
 *   current: { version: found.version },
 *   remove: (ifVersion) => app.sql.transaction((tx) => w.deleteApplication(tx, { tenant, id, ifVersion })),
 * });
 * if (out.kind === 'stopped') return reply.send(out.payload);
 * return reply.code(204).send();
 */
export async function conditionalDelete(
  request: FastifyRequest,
  reply: FastifyReply,
  input: ConditionalDelete,
): Promise<{ kind: 'stopped'; payload: string } | { kind: 'deleted' }> {
  const check = routePreconditions(request, reply, currentState(input.current));
  if (!check.proceed) return { kind: 'stopped', payload: check.payload };
  const deleted = await input.remove(check.result.conditional ? input.current.version : undefined);
  if (!deleted) throw fromConditional(staleWriteProblem(true));
  return { kind: 'deleted' };
}
