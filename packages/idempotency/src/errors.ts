/** Every `code` an error of this package can carry. */
export type IdempotencyErrorCode =
  | 'SURETY_IDEMPOTENCY_LEASE_LOST'
  | 'SURETY_IDEMPOTENCY_STORE_UNAVAILABLE'
  | 'SURETY_IDEMPOTENCY_NO_TRANSACTION';

// Brands in the global symbol registry, as undici does: `instanceof` and the guards below then
// recognise an error made by another installed copy of this package (two versions in one tree).
const kError: unique symbol = Symbol.for('surety.idempotency.error');
const kLeaseLost: unique symbol = Symbol.for('surety.idempotency.error.SURETY_IDEMPOTENCY_LEASE_LOST');
const kStoreUnavailable: unique symbol = Symbol.for(
  'surety.idempotency.error.SURETY_IDEMPOTENCY_STORE_UNAVAILABLE',
);
const kNoTransaction: unique symbol = Symbol.for(
  'surety.idempotency.error.SURETY_IDEMPOTENCY_NO_TRANSACTION',
);

const branded = (value: unknown, symbol: symbol): boolean =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;

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

  get [kError](): true {
    return true;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kError);
  }
}

/** The lease was taken over (it expired and another request claimed the key): fencing refused the write. */
export class LeaseLostError extends IdempotencyError {
  constructor(message = 'the idempotency lease was lost to another owner') {
    super('SURETY_IDEMPOTENCY_LEASE_LOST', message);
    this.name = 'LeaseLostError';
  }

  get [kLeaseLost](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kLeaseLost);
  }
}

/** The idempotency store could not be reached: the handler was not run. */
export class StoreUnavailableError extends IdempotencyError {
  constructor(options?: { cause?: unknown }) {
    super('SURETY_IDEMPOTENCY_STORE_UNAVAILABLE', 'the idempotency store is unavailable', options);
    this.name = 'StoreUnavailableError';
  }

  get [kStoreUnavailable](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kStoreUnavailable);
  }
}

/**
 * The route asked for the idempotency transaction but the layer is not on it (a programming
 * error: add `config: { idempotency: … }` in Fastify, or the middleware in Express).
 */
export class NoTransactionError extends IdempotencyError {
  constructor(message = 'no idempotency transaction: the idempotency layer is not on this route') {
    super('SURETY_IDEMPOTENCY_NO_TRANSACTION', message);
    this.name = 'NoTransactionError';
  }

  get [kNoTransaction](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kNoTransaction);
  }
}

/** Whether `e` is an error of this package (of any installed copy). */
export const isIdempotencyError = (e: unknown): e is IdempotencyError => branded(e, kError);
export const isLeaseLostError = (e: unknown): e is LeaseLostError => branded(e, kLeaseLost);
export const isStoreUnavailableError = (e: unknown): e is StoreUnavailableError =>
  branded(e, kStoreUnavailable);
export const isNoTransactionError = (e: unknown): e is NoTransactionError => branded(e, kNoTransaction);
