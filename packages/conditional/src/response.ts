import type { CurrentState, PreconditionInput, PreconditionResult } from './evaluate.js';
import { formatHttpDate } from './parse.js';
import { PROBLEM_CONTENT_TYPE, preconditionProblem, problemBody } from './problem.js';

/** The options the framework helpers pass on to {@link evaluatePreconditions}. */
export type CheckOptions = Pick<PreconditionInput, 'require' | 'lenientDates' | 'now'>;

/**
 * What the framework helpers (`checkPreconditions` of `/fastify`, `/express`, `/hono`) take besides the
 * request: the resource's current state, and the options passed on to {@link evaluatePreconditions}.
 * @example
 * checkPreconditions(request, reply, { current: { exists: true, etag: versionETag(row.version) }, require: true });
 */
export interface CheckInput extends CheckOptions {
  /** The resource as it is now: `{ exists: false }` when there is none. */
  current: CurrentState;
}

/** A `proceed` result: `ifMatch` says whether a 0-row versioned update is a 412 or a 409. */
export type ProceedResult = Extract<PreconditionResult, { kind: 'proceed' }>;
/** Any result but `proceed`: the request has been (or is to be) answered with its status. */
export type StopResult = Exclude<PreconditionResult, { kind: 'proceed' }>;

/** Validators to send with a response. */
export interface Validators {
  /** The ETag header value, e.g. from `versionETag(row.version)`. @default undefined (not sent) */
  etag?: string | undefined;
  /** Sent as an IMF-fixdate `Last-Modified`. @default undefined (not sent) */
  lastModified?: Date | undefined;
}

/**
 * The header map of validators: `etag` and `last-modified`, for those given.
 * @example validatorHeaders({ etag: '"v7"' }) // { etag: '"v7"' }
 */
export function validatorHeaders(validators: Validators): Record<string, string> {
  const headers: Record<string, string> = {};
  if (validators.etag !== undefined) headers['etag'] = validators.etag;
  if (validators.lastModified !== undefined)
    headers['last-modified'] = formatHttpDate(validators.lastModified);
  return headers;
}

/** A complete response for a result other than `proceed`. */
export interface PreconditionResponse {
  status: 304 | 400 | 412 | 428;
  headers: Record<string, string>;
  /** Empty for 304; problem+json otherwise. */
  body: string;
}

/**
 * The response for a result other than `proceed`: 304 with the current validators (RFC 9110 §15.4.5),
 * or 400 / 412 / 428 as problem+json. Undefined for `proceed`. The framework helpers send this; use it
 * directly with any other server.
 * @example
 * const res = preconditionResponse(result, { current, instance: req.url });
 * if (res) return new Response(res.body || null, { status: res.status, headers: res.headers });
 */
export function preconditionResponse(
  result: PreconditionResult,
  context: {
    /** The resource as it is now: its validators go on a 304. */
    current: CurrentState;
    /** The problem's `instance` (the request path). @default undefined (not sent) */
    instance?: string | undefined;
  },
): PreconditionResponse | undefined {
  const { current, instance } = context;
  if (result.kind === 'proceed') return undefined;
  if (result.kind === 'not_modified') {
    return { status: 304, headers: validatorHeaders(current), body: '' };
  }
  const problem = preconditionProblem(result)!;
  return {
    status: result.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE },
    body: problemBody(problem, instance),
  };
}
