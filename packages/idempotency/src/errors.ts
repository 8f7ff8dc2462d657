import { brandError } from '@surety/core';
/** Every `code` an error of this package can carry. */
export type IdempotencyErrorCode =
  | 'SURETY_IDEMPOTENCY_LEASE_LOST'
  | 'SURETY_IDEMPOTENCY_STORE_UNAVAILABLE'
  | 'SURETY_IDEMPOTENCY_NO_TRANSACTION'
  | 'SURETY_IDEMPOTENCY_EFFECT_FAILED'
  | 'SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER';

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

/** Base class: every error of this package has a stable `code`. */
export class IdempotencyError extends Error {
  constructor(
    readonly code: IdempotencyErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IdempotencyError';
  }
}

/** The lease was taken over (it expired and another request claimed the key): fencing refused the write. */
export class LeaseLostError extends IdempotencyError {
  declare readonly code: 'SURETY_IDEMPOTENCY_LEASE_LOST';
  constructor(message = 'the idempotency lease was lost to another owner') {
    super('SURETY_IDEMPOTENCY_LEASE_LOST', message);
    this.name = 'LeaseLostError';
  }
}

/** The idempotency store could not be reached: the handler was not run. */
export class StoreUnavailableError extends IdempotencyError {
  declare readonly code: 'SURETY_IDEMPOTENCY_STORE_UNAVAILABLE';
  constructor(options?: { cause?: unknown }) {
    super('SURETY_IDEMPOTENCY_STORE_UNAVAILABLE', 'the idempotency store is unavailable', options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The route asked for the idempotency transaction but the layer is not on it (a programming
 * error: add `config: { idempotency: … }` in Fastify, or the middleware in Express).
 */
export class NoTransactionError extends IdempotencyError {
  declare readonly code: 'SURETY_IDEMPOTENCY_NO_TRANSACTION';
  constructor(message = 'no idempotency transaction: the idempotency layer is not on this route') {
    super('SURETY_IDEMPOTENCY_NO_TRANSACTION', message);
    this.name = 'NoTransactionError';
  }
}

/**
 * Thrown by an effect's `run` when retrying cannot help (the provider rejected the request as
 * invalid): the effect ends `failed` at once, its `onFailed` write committed with that state.
 * `reason` is stored as the effect's last error (keep it short and free of secrets).
 * @example
 * if (res.status === 400) throw new EffectFailedError('provider_rejected');
 */
export class EffectFailedError extends IdempotencyError {
  declare readonly code: 'SURETY_IDEMPOTENCY_EFFECT_FAILED';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('SURETY_IDEMPOTENCY_EFFECT_FAILED', `the effect failed: ${reason}`, options);
    this.name = 'EffectFailedError';
  }
}

/**
 * Thrown by an effect's `run` when the other side said when to come back (a `Retry-After`, read
 * with @surety/fetch's `parseRetryAfter`): the next attempt waits at least `retryAfterMs`, and the
 * effect gives up at once when that lies past its deadline (the client policy's rule).
 * @example
 * throw new EffectRetryLaterError(parseRetryAfter(res.headers.get('retry-after'), Date.now()) ?? 0);
 */
export class EffectRetryLaterError extends IdempotencyError {
  declare readonly code: 'SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER';
  constructor(
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super('SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER', `retry after ${retryAfterMs} ms`, options);
    this.name = 'EffectRetryLaterError';
  }
}

/** Whether `e` is an error of this package (of any installed copy). */
export const isIdempotencyError = brandError(IdempotencyError, 'surety.idempotency.error');
export const isLeaseLostError = brandError(
  LeaseLostError,
  'surety.idempotency.error.SURETY_IDEMPOTENCY_LEASE_LOST',
);
export const isStoreUnavailableError = brandError(
  StoreUnavailableError,
  'surety.idempotency.error.SURETY_IDEMPOTENCY_STORE_UNAVAILABLE',
);
export const isNoTransactionError = brandError(
  NoTransactionError,
  'surety.idempotency.error.SURETY_IDEMPOTENCY_NO_TRANSACTION',
);
export const isEffectFailedError = brandError(
  EffectFailedError,
  'surety.idempotency.error.SURETY_IDEMPOTENCY_EFFECT_FAILED',
);
export const isEffectRetryLaterError = brandError(
  EffectRetryLaterError,
  'surety.idempotency.error.SURETY_IDEMPOTENCY_EFFECT_RETRY_LATER',
);
