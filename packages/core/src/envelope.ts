/**
 * The envelope every webhook body carries, around the type-specific `data`.
 * @example
 * const event = JSON.parse(rawBody) as Envelope<{ id: string }>;
 */
export interface Envelope<T = unknown> {
  /** `evt_…`, or the id the publisher chose; the same on every retry and replay. */
  id: string;
  /** The event type (`order.shipped`): see `EVENT_TYPE_PATTERN`. */
  type: string;
  apiVersion: string;
  /** ISO 8601 date-time the event was published (not when this attempt was sent). */
  createdAt: string;
  /** Increases per resource; gaps allowed: compare, don't count. */
  sequence: number;
  data: T;
}
