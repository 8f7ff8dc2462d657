// The definitions the Surety packages share, each in one place. Nothing here depends on a framework,
// a database or another package (Node-only helpers: the `@surety/core/node` subpath).
export { brandError, hasBrand } from './brand.js';
export type { Envelope } from './envelope.js';
export {
  EVENT_TYPE_MAX_LENGTH,
  EVENT_TYPE_PATTERN,
  EVENT_TYPE_PATTERN_SOURCE,
  isEventType,
} from './event-type.js';
export { isProblemDocument, type ProblemDocument, parseProblem } from './parse-problem.js';
export {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_TYPE_BASE,
  type Problem,
  problemBody,
  problemType,
} from './problem.js';
export { parseRetryAfter } from './retry-after.js';
export { DEFAULT_RETRY_SCHEDULE, formatDelay } from './schedule.js';
export {
  errorCode,
  type PackageTracer,
  packageTracer,
  TRACED_RESPONSE_HEADERS,
  type TracingApi,
  traceableUrl,
} from './tracing.js';
