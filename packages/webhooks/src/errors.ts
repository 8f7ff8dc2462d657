import { brandError } from '@surety/core';
/** Every `code` an error of this package (other than a delivery attempt's, see ./ssrf/errors.ts) carries. */
export type WebhookErrorCode =
  | 'SURETY_INVALID_URL'
  | 'SURETY_INVALID_EVENT'
  | 'SURETY_INVALID_INPUT'
  | 'SURETY_INVALID_HEADERS'
  | 'SURETY_INVALID_FILTER'
  | 'SURETY_INVALID_AUTH'
  | 'SURETY_INVALID_CURSOR'
  | 'SURETY_ENDPOINT_NOT_FOUND'
  | 'SURETY_ENDPOINT_LIMIT'
  | 'SURETY_APPLICATION_NOT_FOUND'
  | 'SURETY_APPLICATION_UID_TAKEN'
  | 'SURETY_OUTCOME_UNSTORABLE'
  | 'SURETY_CLOCK_SKEW'
  | 'SURETY_NOT_POLL_ENDPOINT'
  | 'SURETY_POLL_LIMIT';

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

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
}

/** An event that cannot be published: bad type name, data that is not JSON, or a failed schema check. */
export class InvalidEventError extends WebhookError {
  declare readonly code: 'SURETY_INVALID_EVENT';
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
  declare readonly code: 'SURETY_INVALID_INPUT';
  constructor(
    message: string,
    /** Where, as JSON pointers into the arguments (`/description`, `/since`), with messages. */
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super('SURETY_INVALID_INPUT', message);
    this.name = 'InvalidInputError';
  }
}

/**
 * An endpoint's custom `headers` that cannot be sent: a reserved name (the signature headers,
 * `host`, `content-length`…), a name that is not an RFC 9110 token, a value with CR, LF, NUL or
 * another control character, or too many or too long (headers.ts has the rules).
 */
export class InvalidHeadersError extends WebhookError {
  declare readonly code: 'SURETY_INVALID_HEADERS';
  constructor(
    message: string,
    /** Which header, as JSON pointers (`/headers/Host`), with messages; values are never quoted. */
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super('SURETY_INVALID_HEADERS', message);
    this.name = 'InvalidHeadersError';
  }
}

/**
 * An endpoint `filter` outside the language or its bounds (filter/parse.ts: FILTER_LIMITS): an
 * unknown operator, a path that does not start with `type`, `resource` or `data`, an ordering of a
 * non-number, too deep, too wide, too many conditions, a literal too long; or, where the engine was
 * given the event types' schemas, a path no subscribed type can have or a value of the wrong type.
 */
export class InvalidFilterError extends WebhookError {
  declare readonly code: 'SURETY_INVALID_FILTER';
  constructor(
    message: string,
    /** Where, as JSON pointers into the input (`/filter/data.amount/$gt`), with messages. */
    readonly errors: { path: string; message: string }[] = [],
  ) {
    super('SURETY_INVALID_FILTER', message);
    this.name = 'InvalidFilterError';
  }
}

/** A mutation or a health read named an endpoint the tenant does not have. */
export class EndpointNotFoundError extends WebhookError {
  declare readonly code: 'SURETY_ENDPOINT_NOT_FOUND';
  constructor() {
    super('SURETY_ENDPOINT_NOT_FOUND', 'no such webhook endpoint');
    this.name = 'EndpointNotFoundError';
  }
}

/** The tenant already has the most endpoints allowed (`maxEndpointsPerTenant`). */
export class EndpointLimitError extends WebhookError {
  declare readonly code: 'SURETY_ENDPOINT_LIMIT';
  constructor(readonly limit: number) {
    super('SURETY_ENDPOINT_LIMIT', `a tenant may have at most ${limit} webhook endpoints`);
    this.name = 'EndpointLimitError';
  }
}

/**
 * An application named by id or uid that the tenant does not have: a mutation of it, an endpoint
 * created for it, or an event published to it.
 */
export class ApplicationNotFoundError extends WebhookError {
  declare readonly code: 'SURETY_APPLICATION_NOT_FOUND';
  constructor(
    /**
     * The input field that named it (`applicationId` of createEndpoint, `application` of
     * publish); undefined when the application is what the call is about
     * (update, delete). A service answers the first 422 and the second 404.
     */
    readonly field?: 'applicationId' | 'application',
  ) {
    super('SURETY_APPLICATION_NOT_FOUND', field ? `${field}: no such application` : 'no such application');
    this.name = 'ApplicationNotFoundError';
  }
}

/** Another application of the tenant has this uid (uids are unique per tenant). */
export class ApplicationUidTakenError extends WebhookError {
  declare readonly code: 'SURETY_APPLICATION_UID_TAKEN';
  constructor(readonly uid: string) {
    super('SURETY_APPLICATION_UID_TAKEN', `another application has the uid ${JSON.stringify(uid)}`);
    this.name = 'ApplicationUidTakenError';
  }
}

/**
 * Partition maintenance refused because this process's clock (the engine's `now`) is further from
 * the database's `now()` than `maxClockSkewMs`: its publishes are dated by that clock, so windows
 * and retention would be wrong for them. Nothing was created or dropped; fix the clock (NTP).
 */
export class ClockSkewError extends WebhookError {
  declare readonly code: 'SURETY_CLOCK_SKEW';
  constructor(
    /** This process's clock minus the database's, in milliseconds (positive: ahead). */
    readonly skewMs: number,
    /** The bound it exceeded. */
    readonly maxClockSkewMs: number,
  ) {
    const s = (ms: number) => `${(Math.abs(ms) / 1000).toFixed(1)} s`;
    super(
      'SURETY_CLOCK_SKEW',
      `this process's clock is ${s(skewMs)} ${skewMs > 0 ? 'ahead of' : 'behind'} the database's clock ` +
        `(at most ${s(maxClockSkewMs)} allowed): partition maintenance refused, nothing changed`,
    );
    this.name = 'ClockSkewError';
  }
}

/** A poll read or acknowledgement named an endpoint of another kind (poll/). */
export class NotPollEndpointError extends WebhookError {
  declare readonly code: 'SURETY_NOT_POLL_ENDPOINT';
  constructor(readonly kind: string) {
    super(
      'SURETY_NOT_POLL_ENDPOINT',
      `a ${kind} endpoint is delivered to, not read: only a poll endpoint is`,
    );
    this.name = 'NotPollEndpointError';
  }
}

/** The tenant already has `limit` long-polls waiting in this process (poll/waits.ts). */
export class PollLimitError extends WebhookError {
  declare readonly code: 'SURETY_POLL_LIMIT';
  constructor(readonly limit: number) {
    super('SURETY_POLL_LIMIT', `at most ${limit} long-polls of one tenant wait at once`);
    this.name = 'PollLimitError';
  }
}

export const isWebhookError = brandError(WebhookError, 'surety.webhooks.error');
export const isNotPollEndpointError = brandError(
  NotPollEndpointError,
  'surety.webhooks.error.SURETY_NOT_POLL_ENDPOINT',
);
export const isPollLimitError = brandError(PollLimitError, 'surety.webhooks.error.SURETY_POLL_LIMIT');
export const isEndpointLimitError = brandError(
  EndpointLimitError,
  'surety.webhooks.error.SURETY_ENDPOINT_LIMIT',
);
export const isInvalidEventError = brandError(
  InvalidEventError,
  'surety.webhooks.error.SURETY_INVALID_EVENT',
);
export const isInvalidInputError = brandError(
  InvalidInputError,
  'surety.webhooks.error.SURETY_INVALID_INPUT',
);
export const isEndpointNotFoundError = brandError(
  EndpointNotFoundError,
  'surety.webhooks.error.SURETY_ENDPOINT_NOT_FOUND',
);
export const isApplicationNotFoundError = brandError(
  ApplicationNotFoundError,
  'surety.webhooks.error.SURETY_APPLICATION_NOT_FOUND',
);
export const isApplicationUidTakenError = brandError(
  ApplicationUidTakenError,
  'surety.webhooks.error.SURETY_APPLICATION_UID_TAKEN',
);
export const isInvalidHeadersError = brandError(
  InvalidHeadersError,
  'surety.webhooks.error.SURETY_INVALID_HEADERS',
);
export const isInvalidFilterError = brandError(
  InvalidFilterError,
  'surety.webhooks.error.SURETY_INVALID_FILTER',
);
export const isClockSkewError = brandError(ClockSkewError, 'surety.webhooks.error.SURETY_CLOCK_SKEW');
