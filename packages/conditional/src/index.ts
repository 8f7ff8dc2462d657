export type { ConditionalErrorCode } from './errors.js';
export { ConditionalError, isConditionalError } from './errors.js';
export type { ContentETagOptions, ETag, VersionETagOptions } from './etag.js';
export {
  contentETag,
  formatETag,
  isOpaqueTag,
  parseETag,
  strongMatch,
  versionETag,
  versionFromETag,
  weakMatch,
} from './etag.js';
export type {
  CurrentState,
  PreconditionHeader,
  PreconditionInput,
  PreconditionResult,
} from './evaluate.js';
export { evaluatePreconditions } from './evaluate.js';
export type { HeaderSource } from './headers.js';
export type { ETagListParse } from './parse.js';
export { formatHttpDate, parseETagList, parseHttpDate } from './parse.js';
export type { Problem } from './problem.js';
export {
  malformedPreconditionProblem,
  PROBLEM_CONTENT_TYPE,
  preconditionFailedProblem,
  preconditionProblem,
  preconditionRequiredProblem,
  problemBody,
  versionConflictProblem,
} from './problem.js';
export type {
  CheckInput,
  CheckOptions,
  PreconditionResponse,
  ProceedResult,
  StopResult,
  Validators,
} from './response.js';
export { preconditionResponse, validatorHeaders } from './response.js';
export type { IfMatchVersion } from './version.js';
export { ifMatchVersion, staleWriteProblem } from './version.js';
