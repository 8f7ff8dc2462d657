import type { Problem } from '@surety/core';
import type { PreconditionResult } from './evaluate.js';

// The problem+json shape and builder are @surety/core's, shared by every package; re-exported here
// because they have always been part of this package's API. Codes of this package:
// `precondition_failed`, `precondition_required`, `malformed_precondition`, `version_conflict`.
export { PROBLEM_CONTENT_TYPE, type Problem, problemBody } from '@surety/core';

const HEADER_NAMES = {
  'if-match': 'If-Match',
  'if-none-match': 'If-None-Match',
  'if-unmodified-since': 'If-Unmodified-Since',
  'if-modified-since': 'If-Modified-Since',
} as const;

/**
 * 412 `precondition_failed`: the resource changed since the client read it (or, for
 * `If-None-Match: *`, it already exists). The client re-reads and decides again.
 * @default header undefined: a detail that names no header (a write that lost a race after its check)
 * @example preconditionFailedProblem('if-match').status // 412
 */
export function preconditionFailedProblem(
  header?: 'if-match' | 'if-unmodified-since' | 'if-none-match',
): Problem {
  const retry = 'GET it again for its current ETag, re-apply your change, and retry with the new If-Match.';
  const detail =
    header === 'if-none-match'
      ? 'The resource already exists (or matches If-None-Match), so it was not changed.'
      : header === undefined
        ? `The resource was changed by another request while this one was processed, so its precondition no longer holds and it was not changed. ${retry}`
        : `The resource has changed since the version named by ${HEADER_NAMES[header]}, so it was not changed. ${retry}`;
  return { status: 412, code: 'precondition_failed', title: 'Precondition failed', detail };
}

/**
 * 428 `precondition_required`: the route refuses blind writes.
 * @example preconditionRequiredProblem().code // 'precondition_required'
 */
export function preconditionRequiredProblem(): Problem {
  return {
    status: 428,
    code: 'precondition_required',
    title: 'Precondition required',
    detail:
      'This request must be conditional: send If-Match with the ETag from your last GET to change the ' +
      'resource, or If-None-Match: * to create it only if it does not exist.',
  };
}

/**
 * 400 `malformed_precondition`: a precondition header could not be parsed; nothing was evaluated.
 * @example malformedPreconditionProblem('If-Match: "abc" is not an entity tag').status // 400
 */
export function malformedPreconditionProblem(detail: string): Problem {
  return { status: 400, code: 'malformed_precondition', title: 'Malformed precondition', detail };
}

/**
 * 409 `version_conflict`: a versioned update matched no row and the client sent no If-Match (it named the
 * version some other way, or not at all). With If-Match the same situation is a 412.
 * @example versionConflictProblem().status // 409
 */
export function versionConflictProblem(): Problem {
  return {
    status: 409,
    code: 'version_conflict',
    title: 'Version conflict',
    detail:
      'The resource was changed by another request while this one was processed. GET it again, ' +
      're-apply your change, and retry with If-Match set to the new ETag.',
  };
}

/**
 * The Problem for a result that is a 400, 412 or 428; undefined for `proceed` and `not_modified`
 * (a 304 has no body).
 * @example
 * const problem = preconditionProblem(result);
 * if (problem) reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(problem));
 */
export function preconditionProblem(result: PreconditionResult): Problem | undefined {
  switch (result.kind) {
    case 'precondition_failed':
      return preconditionFailedProblem(result.header);
    case 'precondition_required':
      return preconditionRequiredProblem();
    case 'malformed_precondition':
      return malformedPreconditionProblem(result.detail);
    default:
      return undefined;
  }
}
