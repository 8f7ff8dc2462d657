export { parseRetryAfter } from '@surety/core';
export type { BackoffOptions } from './backoff.js';
export {
  DEFAULT_BASE_DELAY_MS,
  DEFAULT_MAX_DELAY_MS,
  fullJitter,
} from './backoff.js';
export type { Body } from './body.js';
export type { RetryBudgetOptions } from './budget.js';
export {
  DEFAULT_BUDGET_MAX_TOKENS,
  DEFAULT_BUDGET_MIN_PER_SECOND,
  DEFAULT_BUDGET_RATIO,
  RetryBudget,
} from './budget.js';
export type { CircuitBreakerOptions, CircuitOutcome, CircuitState } from './circuit-breaker.js';
export { CircuitBreaker } from './circuit-breaker.js';
export { createFetch } from './client.js';
export type { Clock } from './clock.js';
export { sleep, systemClock } from './clock.js';
export { CHANNELS } from './diagnostics.js';
export {
  AttemptTimeoutError,
  CircuitOpenError,
  DeadlineExceededError,
  FetchError,
  type FetchErrorCode,
  isAttemptTimeoutError,
  isCircuitOpenError,
  isDeadlineExceededError,
  isFetchError,
} from './errors.js';
export type { GiveUpEvent, GiveUpReason, RetryEvent } from './events.js';
export { ATTEMPT_HEADER, DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER } from './headers.js';
export type {
  FetchInput,
  FetchOptions,
  SuretyFetch,
  SuretyRequestInit,
  Transport,
  TransportInit,
} from './options.js';
export {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ATTEMPTS,
} from './options.js';
export {
  DEFAULT_RETRY_METHODS,
  DEFAULT_RETRY_STATUSES,
  isOriginFailure,
  isRetryableError,
  RETRYABLE_ERROR_CODES,
} from './policy.js';
export type { DeadlineProblemInput, HeaderSource, ReadDeadlineOptions } from './server.js';
export { DEFAULT_MAX_DEADLINE_MS, deadlineProblem, deadlineSignal, readDeadline } from './server.js';
