import type { JsonSchema } from './json-schema.js';

// The event-type pattern and the envelope are @surety/core's, shared with @surety/webhooks and the
// service; re-exported here under the names this package has always used.
export { type Envelope as EventEnvelope, EVENT_TYPE_PATTERN } from '@surety/core';

/**
 * The JSON Schema of a whole webhook body for one event type: the envelope with `type` fixed to that
 * type and `data` set to the type's schema. Objects are left open: consumers must ignore fields they
 * do not know (new optional fields are an additive change).
 * @example
 * const schema = envelopeSchema('order.shipped', orderSchema);
 */
export function envelopeSchema(type: string, data: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['id', 'type', 'apiVersion', 'createdAt', 'sequence', 'data'],
    properties: {
      id: {
        type: 'string',
        pattern: '^[\\x21-\\x7e]{1,255}$',
        description:
          'Unique event id (`evt_…`, or the id the publisher chose). The same on every retry and replay: de-duplicate on it.',
        examples: ['evt_4fKq9Zr2LmXc81TbWnY3sA'],
      },
      type: { type: 'string', const: type, description: 'The event type.' },
      apiVersion: {
        type: 'string',
        description: 'The API version the event was rendered with.',
        examples: ['2026-11-01'],
      },
      createdAt: {
        type: 'string',
        format: 'date-time',
        description: 'When the event was published (not when this delivery attempt was sent).',
      },
      sequence: {
        type: 'integer',
        minimum: 1,
        description:
          'Increases with every event about the same resource; gaps are allowed. Compare, do not count: ignore an event whose sequence is lower than the last one you applied for that resource.',
      },
      data: data,
    },
  };
}

/**
 * The HTTP headers of every delivery. Header names are lower case (HTTP/2 requires it; HTTP/1.1
 * receivers must compare them case-insensitively anyway).
 * @example
 * message.headers = webhookHeadersSchema();
 */
export function webhookHeadersSchema(): JsonSchema {
  return {
    type: 'object',
    required: ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type'],
    properties: {
      'webhook-id': {
        type: 'string',
        description: "The event id, equal to the body's `id`: the de-duplication key.",
      },
      'webhook-timestamp': {
        type: 'string',
        pattern: '^[0-9]{1,15}$',
        description:
          'Unix seconds when this attempt was signed. Reject deliveries far from your clock (the @surety/webhook-verify default tolerance is 300 s).',
      },
      'webhook-signature': {
        type: 'string',
        description:
          'Default (Surety) format: `t=<webhook-timestamp>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`, one `v1=` per active secret during a rotation. Endpoints set to the Standard Webhooks format get `v1,<base64 HMAC-SHA256(secret, id + "." + timestamp + "." + raw body)>` (or `v1a,<base64 Ed25519>`), space separated. Verify the raw bytes, before parsing the JSON.',
        examples: ['t=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'],
      },
      'content-type': { type: 'string', const: 'application/json' },
      'user-agent': { type: 'string', description: 'Identifies the sender (`Surety-Webhooks/<version>`).' },
    },
  };
}
