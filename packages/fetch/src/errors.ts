import { brandError } from '@surety/core';
/**
 * Every error this package creates has a stable `code` (in the manner of undici's `UND_ERR_*`) and keeps
 * what caused it in `cause`. Network failures are not wrapped: they reach the caller exactly as undici's
 * `fetch` raised them (`TypeError: fetch failed` with the socket error in `cause`), and a caller's abort
 * rejects with the signal's own `reason`, as `fetch` does.
 */

/** Every `code` an error of this package can carry. */
export type FetchErrorCode = 'SURETY_ATTEMPT_TIMEOUT' | 'SURETY_DEADLINE_EXCEEDED' | 'SURETY_CIRCUIT_OPEN';

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

/**
 * Base class of the errors of `@surety/fetch`.
 * @example
 * if (error instanceof FetchError) log.warn({ code: error.code }, error.message);
 */
export class FetchError extends Error {
  constructor(
    /** Stable, machine-readable: switch on it, never on the message. */
    readonly code: FetchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }
}

/**
 * One attempt took longer than `attemptTimeoutMs` to produce response headers. It is retried like any
 * other network error when the request may be retried; otherwise it reaches the caller.
 * @example
 * try { await fetch(url) } catch (e) { if (isAttemptTimeoutError(e)) console.log(e.timeoutMs) }
 */
export class AttemptTimeoutError extends FetchError {
  declare readonly code: 'SURETY_ATTEMPT_TIMEOUT';
  constructor(
    /** The per-attempt timeout that elapsed, in milliseconds. */
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super('SURETY_ATTEMPT_TIMEOUT', `the attempt produced no response within ${timeoutMs} ms`, options);
    this.name = 'AttemptTimeoutError';
  }
}

/**
 * The total deadline of the call (all attempts and the waits between them) passed while an attempt was
 * in flight, or a server learned from the deadline header that its caller has stopped waiting.
 * `cause` holds the last failure seen before it, when there was one.
 * @example
 * try { await fetch(url, { deadlineMs: 2_000 }) } catch (e) { if (isDeadlineExceededError(e)) return fallback }
 */
export class DeadlineExceededError extends FetchError {
  declare readonly code: 'SURETY_DEADLINE_EXCEEDED';
  constructor(
    /** The deadline that passed, in milliseconds from the start of the call. */
    readonly deadlineMs: number,
    options?: { cause?: unknown },
  ) {
    super('SURETY_DEADLINE_EXCEEDED', `the deadline of ${deadlineMs} ms was exceeded`, options);
    this.name = 'DeadlineExceededError';
  }
}

/**
 * The circuit breaker of the origin is open (or half-open with its probes already in flight): the request
 * was not sent at all.
 * @example
 * try { await fetch(url) } catch (e) { if (isCircuitOpenError(e)) return cached(e.retryAfterMs) }
 */
export class CircuitOpenError extends FetchError {
  declare readonly code: 'SURETY_CIRCUIT_OPEN';
  constructor(
    /** The origin whose circuit is open, e.g. `https://api.example.com`. */
    readonly origin: string,
    /** How long until the breaker lets a probe through, in milliseconds (0 when half-open). */
    readonly retryAfterMs: number,
  ) {
    super(
      'SURETY_CIRCUIT_OPEN',
      `the circuit breaker for ${origin} is open; next probe in ${Math.max(0, Math.ceil(retryAfterMs))} ms`,
    );
    this.name = 'CircuitOpenError';
  }
}

/**
 * True for any error created by this package.
 * @example
 * if (isFetchError(e)) metrics.increment(e.code);
 */
export const isFetchError = brandError(FetchError, 'surety.fetch.error');

/**
 * True when one attempt timed out.
 * @example
 * if (isAttemptTimeoutError(e)) console.log(e.timeoutMs);
 */
export const isAttemptTimeoutError = brandError(
  AttemptTimeoutError,
  'surety.fetch.error.SURETY_ATTEMPT_TIMEOUT',
);

/**
 * True when the call's total deadline passed.
 * @example
 * if (isDeadlineExceededError(e)) return reply.code(504).send();
 */
export const isDeadlineExceededError = brandError(
  DeadlineExceededError,
  'surety.fetch.error.SURETY_DEADLINE_EXCEEDED',
);

/**
 * True when the request was refused by an open circuit breaker.
 * @example
 * if (isCircuitOpenError(e)) return serveStale();
 */
export const isCircuitOpenError = brandError(CircuitOpenError, 'surety.fetch.error.SURETY_CIRCUIT_OPEN');
