/**
 * An RFC 9457 problem with Surety's stable `code`, ready to send as `application/problem+json`.
 * Every Surety package answers HTTP errors with this shape (`@surety/idempotency`, `@surety/conditional`,
 * `@surety/webhook-verify`, `@surety/fetch`'s deadline, the service).
 * @example
 * const problem: Problem = { status: 409, code: 'version_conflict', title: 'Version conflict', detail: '…' };
 */
export interface Problem {
  /** The HTTP status, repeated in the body as RFC 9457's `status` member. */
  status: number;
  /** Stable and machine-readable, lower case with underscores (`precondition_failed`); `type` is derived from it. */
  code: string;
  /** A short summary that does not change between occurrences of the same code. */
  title: string;
  /** This occurrence, in words a client developer can act on. */
  detail: string;
  /** Response headers that go with it (`retry-after`); never part of the body. @default none */
  headers?: Record<string, string>;
  /**
   * RFC 9457 extension members, written after the standard ones (`errors`, `limit`). A member with a
   * standard name replaces that member in place.
   * @default none
   */
  extensions?: Record<string, unknown>;
}

/** RFC 9457's media type. @default "application/problem+json" */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The base of every problem `type` URI: the code, lower case, with `-` for `_`, is appended.
 * @default "https://surety.dev/problems/"
 */
export const PROBLEM_TYPE_BASE = 'https://surety.dev/problems/';

/**
 * The `type` URI of a code (RFC 9457 §3.1.1: a URI that identifies the problem type).
 * @example problemType('precondition_failed') // 'https://surety.dev/problems/precondition-failed'
 */
export const problemType = (code: string): string =>
  `${PROBLEM_TYPE_BASE}${code.toLowerCase().replaceAll('_', '-')}`;

/**
 * The problem+json body of a Problem: `type`, `title`, `status`, `detail`, `code`, then `instance`
 * when given, then the extension members. The member order is part of the contract: stored
 * responses are replayed byte for byte, so it never changes.
 * @default instance undefined: no `instance` member
 * @example
 * reply.code(p.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(p, request.url));
 */
export function problemBody(problem: Problem, instance?: string): string {
  return JSON.stringify({
    type: problemType(problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    ...(instance ? { instance } : {}),
    ...problem.extensions,
  });
}
