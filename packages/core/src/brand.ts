// One way to brand an error class, for every Surety package (undici's way): a symbol from the
// global registry marks the class's instances, so `instanceof` and the package's `isXError` guard
// recognise an error made by another installed copy of the package (two versions in one tree),
// and a look-alike without the brand is not taken for one.

/** Where a branded class keeps its symbol (a registry symbol too: any copy of this module reads it). */
const BRAND: unique symbol = Symbol.for('surety.core.brand');

/** Whether `value` is an object carrying `symbol` as a brand (own or inherited, set to `true`). */
export const hasBrand = (value: unknown, symbol: symbol): boolean =>
  typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[symbol] === true;

const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

// `this` is the class right of `instanceof`: a subclass someone derives without branding it inherits
// this function, and gets the ordinary prototype-chain answer instead of its parent's brand.
function hasInstance(this: object, value: unknown): boolean {
  if (!Object.hasOwn(this, BRAND)) return ordinaryHasInstance.call(this, value);
  return hasBrand(value, (this as { [BRAND]: symbol })[BRAND]);
}

/**
 * Brands `cls` with `Symbol.for(key)` (`surety.<package>.error`, `surety.<package>.error.<CODE>` for
 * a subclass) and returns its guard. Brand every class of a hierarchy with a key of its own: an
 * instance carries the brands of its class and of every class above it. Compatible with the brand
 * the packages wrote by hand before (a prototype getter returning `true` under the same key).
 * @example
 * export class WebhookError extends Error { … }
 * export const isWebhookError = brandError(WebhookError, 'surety.webhooks.error');
 */
export function brandError<C extends abstract new (...args: never[]) => Error>(
  cls: C,
  key: string,
): (value: unknown) => value is InstanceType<C> {
  const symbol = Symbol.for(key);
  Object.defineProperty(cls.prototype, symbol, { value: true });
  Object.defineProperty(cls, BRAND, { value: symbol });
  Object.defineProperty(cls, Symbol.hasInstance, { value: hasInstance, configurable: true });
  return (value: unknown): value is InstanceType<C> => hasBrand(value, symbol);
}
