/**
 * The request header that carries the caller's remaining time budget downstream: a non-negative integer
 * number of milliseconds, relative (like gRPC's `grpc-timeout` and Envoy's
 * `x-envoy-expected-rq-timeout-ms`), so that clock skew between hosts does not matter. The client sends
 * the time it will wait for this attempt: `min(attemptTimeoutMs, time left before the deadline)`.
 * @default "Surety-Timeout-Ms"
 */
export const DEADLINE_HEADER = 'Surety-Timeout-Ms';

/**
 * The request header that carries the attempt number, 1 for the first attempt, 2 for the first retry,
 * so a server can see retries in its logs and shed them first under load.
 * @default "Surety-Attempt"
 */
export const ATTEMPT_HEADER = 'Surety-Attempt';

/**
 * The header that carries the idempotency key (draft-ietf-httpapi-idempotency-key-header).
 * @default "Idempotency-Key"
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
