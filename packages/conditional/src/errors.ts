import { brandError } from '@surety/core';
/**
 * Every `code` an error of this package can carry. Both are programming errors of the caller
 * (a value the server made, never a client's header: a client's bad header is a 400 problem).
 * - `SURETY_CONDITIONAL_INVALID_ETAG`: an entity tag the server supplies cannot be written or read
 *   (`formatETag` with a DQUOTE or space, `current.etag` that does not parse).
 * - `SURETY_CONDITIONAL_INVALID_VERSION`: a version that is not a non-negative safe integer.
 */
export type ConditionalErrorCode = 'SURETY_CONDITIONAL_INVALID_ETAG' | 'SURETY_CONDITIONAL_INVALID_VERSION';

// Each class is branded with `Symbol.for('surety.<package>.error…')` by @surety/core's brandError:
// `instanceof` and the guards recognise an error made by another installed copy of this package.

/**
 * The one error of `@surety/conditional`, its base as every package has one (`<Package>Error extends
 * Error`, branded, with a stable `code`: docs/architecture.md).
 * @example
 * try { formatETag({ weak: false, opaque: 'a b' }) } catch (e) { if (isConditionalError(e)) log.error(e.code) }
 */
export class ConditionalError extends Error {
  constructor(
    /** Stable, machine-readable: switch on it, never on the message. */
    readonly code: ConditionalErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ConditionalError';
  }
}

/**
 * Whether `e` is an error of this package (of any installed copy).
 * @example
 * if (isConditionalError(e) && e.code === 'SURETY_CONDITIONAL_INVALID_VERSION') …
 */
export const isConditionalError = brandError(ConditionalError, 'surety.conditional.error');
