/**
 * Event type names: `noun.verb`, lower case, dot separated (`order.shipped`, `invoice.payment_failed`).
 * Enforced by `@surety/webhooks`' publish, `@surety/events`' registry and the service's schemas.
 * @example EVENT_TYPE_PATTERN.test('order.shipped') // true
 */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * The pattern as JSON Schema writes it (a string, for `pattern`).
 * @example { type: 'string', pattern: EVENT_TYPE_PATTERN_SOURCE }
 */
export const EVENT_TYPE_PATTERN_SOURCE = EVENT_TYPE_PATTERN.source;

/**
 * The longest event type name, in characters.
 * @default 100
 */
export const EVENT_TYPE_MAX_LENGTH = 100;

/**
 * True for a string that is a valid event type name: the pattern, at most `EVENT_TYPE_MAX_LENGTH`.
 * @example isEventType('order.shipped') // true; isEventType('Order') // false
 */
export function isEventType(value: unknown): value is string {
  return typeof value === 'string' && value.length <= EVENT_TYPE_MAX_LENGTH && EVENT_TYPE_PATTERN.test(value);
}
