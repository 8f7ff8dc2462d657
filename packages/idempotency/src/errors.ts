import { brandError } from '@surety/core';
/** Every `code` an error of this package can carry. */
export type IdempotencyErrorCode =
  | 'SURETY_IDEMPOTENCY_LEASE_LOST'
  | 'SURETY_IDEMPOTENCY_STORE_UNAVAILABLE'
  | 'SURETY_IDEMPOTENCY_NO_TRANSACTION';

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
