/** Base class: every error of this package has a stable `code`. */
export class IdempotencyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'IdempotencyError';
  }
}

/** The lease was taken over (it expired and another request claimed the key): fencing refused the write. */
export class LeaseLostError extends IdempotencyError {
  constructor(message = 'the idempotency lease was lost to another owner') {
    super('SURETY_IDEMPOTENCY_LEASE_LOST', message);
    this.name = 'LeaseLostError';
  }
}

/** The idempotency store could not be reached: the handler was not run. */
export class StoreUnavailableError extends IdempotencyError {
  constructor(options?: { cause?: unknown }) {
    super('SURETY_IDEMPOTENCY_STORE_UNAVAILABLE', 'the idempotency store is unavailable', options);
    this.name = 'StoreUnavailableError';
  }
}

export const isLeaseLostError = (e: unknown): e is LeaseLostError => e instanceof LeaseLostError;
export const isStoreUnavailableError = (e: unknown): e is StoreUnavailableError =>
  e instanceof StoreUnavailableError;
