/** Every `code` an error of this package (other than a delivery attempt's, see ./ssrf/errors.ts) carries. */
export type WebhookErrorCode =
  | 'SURETY_INVALID_URL'
  | 'SURETY_INVALID_EVENT'
  | 'SURETY_INVALID_INPUT'
  | 'SURETY_INVALID_CURSOR'
  | 'SURETY_ENDPOINT_NOT_FOUND'
  | 'SURETY_ENDPOINT_LIMIT'
  | 'SURETY_OUTCOME_UNSTORABLE';

// Brands in the global symbol registry, as undici does (and @surety/idempotency): `instanceof` and
// the guards below then recognise an error made by another installed copy of this package.
const kError: unique symbol = Symbol.for('surety.webhooks.error');
const kInvalidEvent: unique symbol = Symbol.for('surety.webhooks.error.SURETY_INVALID_EVENT');
const kInvalidInput: unique symbol = Symbol.for('surety.webhooks.error.SURETY_INVALID_INPUT');
const kNotFound: unique symbol = Symbol.for('surety.webhooks.error.SURETY_ENDPOINT_NOT_FOUND');
const kLimit: unique symbol = Symbol.for('surety.webhooks.error.SURETY_ENDPOINT_LIMIT');

const branded = (value: unknown, symbol: symbol): boolean =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;

/** Base class of the package's errors: a stable `code`, and `cause` where there is one. */
export class WebhookError extends Error {
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebhookError';
  }

  get [kError](): true {
    return true;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kError);
  }
}

/** An event that cannot be published: bad type name, data that is not JSON, or a failed schema check. */
export class InvalidEventError extends WebhookError {
  constructor(
    message: string,
    /** Where the payload failed, as JSON pointers with messages. */
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super('SURETY_INVALID_EVENT', message);
    this.name = 'InvalidEventError';
  }

  get [kInvalidEvent](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kInvalidEvent);
  }
}

/**
 * An argument the engine refuses before it reaches the database: a string PostgreSQL cannot store
 * (NUL, a lone surrogate), a date outside what a `timestamptz` parameter carries.
 */
export class InvalidInputError extends WebhookError {
  constructor(
    message: string,
    /** Where, as JSON pointers into the arguments (`/description`, `/since`), with messages. */
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super('SURETY_INVALID_INPUT', message);
    this.name = 'InvalidInputError';
  }

  get [kInvalidInput](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kInvalidInput);
  }
}

/** A mutation or a health read named an endpoint the tenant does not have. */
export class EndpointNotFoundError extends WebhookError {
  constructor() {
    super('SURETY_ENDPOINT_NOT_FOUND', 'no such webhook endpoint');
    this.name = 'EndpointNotFoundError';
  }

  get [kNotFound](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kNotFound);
  }
}

/** The tenant already has the most endpoints allowed (`maxEndpointsPerTenant`). */
export class EndpointLimitError extends WebhookError {
  constructor(readonly limit: number) {
    super('SURETY_ENDPOINT_LIMIT', `a tenant may have at most ${limit} webhook endpoints`);
    this.name = 'EndpointLimitError';
  }

  get [kLimit](): true {
    return true;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kLimit);
  }
}

export const isWebhookError = (e: unknown): e is WebhookError => e instanceof WebhookError;
export const isEndpointLimitError = (e: unknown): e is EndpointLimitError => e instanceof EndpointLimitError;
export const isInvalidEventError = (e: unknown): e is InvalidEventError => e instanceof InvalidEventError;
export const isInvalidInputError = (e: unknown): e is InvalidInputError => e instanceof InvalidInputError;
export const isEndpointNotFoundError = (e: unknown): e is EndpointNotFoundError =>
  e instanceof EndpointNotFoundError;
