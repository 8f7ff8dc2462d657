import { AttemptTimeoutError } from './errors.js';

/**
 * Methods retried without an Idempotency-Key: the safe and idempotent ones of RFC 9110 §9.2.
 * @default ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]
 */
export const DEFAULT_RETRY_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE'];

/**
 * Statuses retried: timeouts, throttling and the gateway errors that say the request did not reach a
 * healthy origin. 500 is left out (a bug in the origin usually fails again the same way) and 501 means
 * "never". Add 500 with `retryStatuses` if your origins use it for transient faults.
 * @default [408, 429, 502, 503, 504]
 */
export const DEFAULT_RETRY_STATUSES: readonly number[] = [408, 429, 502, 503, 504];

/**
 * Error codes (Node's `errno` names and undici's `UND_ERR_*`) that mean the attempt failed in the
 * network: the connection was refused, reset or timed out, or the name did not resolve.
 * @default see source
 */
export const RETRYABLE_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy eyeballs (autoSelectFamily) reports an AggregateError of one error per address tried.
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) ? codeOf(errors[0]) : undefined;
}

/**
 * Whether a thrown error is a network failure worth retrying: an attempt timeout, or undici's
 * `TypeError: fetch failed` whose cause (or cause's cause) carries one of `RETRYABLE_ERROR_CODES`.
 * Caller aborts, invalid URLs and other programming errors are not.
 * @example
 * isRetryableError(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } })); // true
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof AttemptTimeoutError) return true;
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = codeOf(current);
    if (code !== undefined && RETRYABLE_ERROR_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Whether an attempt's outcome counts as a failure of the origin for the circuit breaker: a network
 * failure, or a 5xx other than 501. 4xx (429 included) say the origin is up and answering.
 * @example
 * isOriginFailure(503); // true
 */
export function isOriginFailure(outcome: number | unknown): boolean {
  if (typeof outcome === 'number') return outcome >= 500 && outcome !== 501;
  return isRetryableError(outcome);
}
