/**
 * Every `code` an error of this package can carry. Both are programming errors of the caller
 * (a value the server made, never a client's header: a client's bad header is a 400 problem).
 * - `SURETY_CONDITIONAL_INVALID_ETAG`: an entity tag the server supplies cannot be written or read
 *   (`formatETag` with a DQUOTE or space, `current.etag` that does not parse).
 * - `SURETY_CONDITIONAL_INVALID_VERSION`: a version that is not a non-negative safe integer.
 */
export type ConditionalErrorCode = 'SURETY_CONDITIONAL_INVALID_ETAG' | 'SURETY_CONDITIONAL_INVALID_VERSION';

// A brand in the global symbol registry, as undici does: `instanceof` and the guard below then
// recognise an error made by another installed copy of this package (two versions in one tree).
const kError: unique symbol = Symbol.for('surety.conditional.error');

const branded = (value: unknown, symbol: symbol): boolean =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;

/**
 * The one error of `@surety/conditional`. It extends `TypeError` (what these functions threw before
 * it existed), so `catch (e) { if (e instanceof TypeError) … }` keeps working.
 * @example
 * try { formatETag({ weak: false, opaque: 'a b' }) } catch (e) { if (isConditionalError(e)) log.error(e.code) }
 */
export class ConditionalError extends TypeError {
  constructor(
    /** Stable, machine-readable: switch on it, never on the message. */
    readonly code: ConditionalErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ConditionalError';
  }

  get [kError](): true {
    return true;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return branded(value, kError);
  }
}

/**
 * Whether `e` is an error of this package (of any installed copy).
 * @example
 * if (isConditionalError(e) && e.code === 'SURETY_CONDITIONAL_INVALID_VERSION') …
 */
export const isConditionalError = (e: unknown): e is ConditionalError => branded(e, kError);
