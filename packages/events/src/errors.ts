import { brandError } from '@surety/core';
/**
 * One failing place in a payload: a JSON pointer (RFC 6901) into the validated value, and why.
 * @example
 * { path: '/items/0/quantity', message: 'must be >= 1' }
 */
export interface EventIssue {
  /** `''` for the value itself, `/items/0/quantity` for a nested field. */
  path: string;
  message: string;
}

/**
 * Stable error codes of `@surety/events`. HTTP answers carry the same `code` in problem+json.
 * - `SURETY_EVENT_UNKNOWN_TYPE`: the type was never registered.
 * - `SURETY_EVENT_INVALID_PAYLOAD`: `data` fails the type's schema; `errors` lists where.
 * - `SURETY_EVENT_INVALID_DEFINITION`: `register()` got a bad name, schema or sample.
 * - `SURETY_EVENT_DUPLICATE_TYPE`: `register()` got a type that is already registered.
 * - `SURETY_CONTRACT_INVALID_DOCUMENT`: the compatibility checker got something that is not an AsyncAPI 3 document.
 * @example
 * if (e.code === 'SURETY_EVENT_INVALID_PAYLOAD') status = 422;
 */
export type EventErrorCode =
  | 'SURETY_EVENT_UNKNOWN_TYPE'
  | 'SURETY_EVENT_INVALID_PAYLOAD'
  | 'SURETY_EVENT_INVALID_DEFINITION'
  | 'SURETY_EVENT_DUPLICATE_TYPE'
  | 'SURETY_CONTRACT_INVALID_DOCUMENT';

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

/**
 * The one error class of `@surety/events`. `errors` is always present (empty when there is no
 * path to point at), so `@surety/webhooks`' publish and the service can map it to a 422 as is.
 * @example
 * try { registry.assertValid('order.shipped', data); }
 * catch (e) { if (isEventError(e)) reply.code(422).send({ code: e.code, errors: e.errors }); }
 */
export class EventError extends Error {
  constructor(
    readonly code: EventErrorCode,
    message: string,
    /** Where the payload failed, as JSON pointers relative to `data`, with messages. @default [] */
    readonly errors: EventIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EventError';
  }
}

/**
 * True for any error thrown by this package (of any installed copy).
 * @example
 * if (isEventError(e) && e.code === 'SURETY_EVENT_UNKNOWN_TYPE') …
 */
export const isEventError = brandError(EventError, 'surety.events.error');
