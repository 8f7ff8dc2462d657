/** Errors of the webhooks package (other than delivery attempts, see ./ssrf/errors.ts). */
export class WebhookError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WebhookError';
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
}

export class EndpointNotFoundError extends WebhookError {
  constructor() {
    super('SURETY_ENDPOINT_NOT_FOUND', 'no such webhook endpoint');
    this.name = 'EndpointNotFoundError';
  }
}

/** The tenant already has the most endpoints allowed (`maxEndpointsPerTenant`). */
export class EndpointLimitError extends WebhookError {
  constructor(readonly limit: number) {
    super('SURETY_ENDPOINT_LIMIT', `a tenant may have at most ${limit} webhook endpoints`);
    this.name = 'EndpointLimitError';
  }
}

export const isEndpointLimitError = (e: unknown): e is EndpointLimitError => e instanceof EndpointLimitError;
export const isInvalidEventError = (e: unknown): e is InvalidEventError => e instanceof InvalidEventError;
export const isInvalidInputError = (e: unknown): e is InvalidInputError => e instanceof InvalidInputError;
export const isEndpointNotFoundError = (e: unknown): e is EndpointNotFoundError =>
  e instanceof EndpointNotFoundError;
