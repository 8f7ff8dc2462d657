/**
 * What changed between two contracts.
 * Breaking: `event-type-removed`, `field-removed`, `field-renamed`, `type-changed`,
 * `required-field-added`, `field-now-required`, `field-now-optional`, `enum-narrowed`,
 * `constraint-tightened`, `schema-changed` (a change the checker cannot prove safe).
 * Additive / harmless: `event-type-added`, `optional-field-added`, `enum-widened`,
 * `constraint-loosened`, `deprecated`.
 * @example
 * const blocking = changes.filter((c) => c.kind === 'field-removed');
 */
export type ChangeKind =
  | 'event-type-removed'
  | 'event-type-added'
  | 'field-removed'
  | 'field-renamed'
  | 'type-changed'
  | 'required-field-added'
  | 'optional-field-added'
  | 'field-now-required'
  | 'field-now-optional'
  | 'enum-narrowed'
  | 'enum-widened'
  | 'constraint-tightened'
  | 'constraint-loosened'
  | 'schema-changed'
  | 'deprecated';

/**
 * One difference between the old and the new contract.
 * @example
 * { kind: 'field-removed', eventType: 'order.shipped', path: '/payload/data/shippedAt', breaking: true, message: '…' }
 */
export interface ContractChange {
  kind: ChangeKind;
  /**
   * Where, as a JSON pointer from the message: `/payload/data/shippingAddress`, `/headers/webhook-id`;
   * a `*` segment stands for every array item or map value; `''` for a whole event type.
   */
  path: string;
  /** The event type the change is in, when it is in one. */
  eventType?: string;
  breaking: boolean;
  message: string;
}
