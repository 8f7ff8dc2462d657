/** The JSON Schemas of the order routes (rendered into /openapi.json) and the row ↔ JSON mapping. */
import type { OrderFields, OrderRow } from '../data/orders.js';

const item = {
  type: 'object',
  additionalProperties: false,
  required: ['sku', 'quantity'],
  properties: {
    sku: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 },
  },
} as const;

const editable = {
  customerId: { type: 'string', minLength: 1, maxLength: 255 },
  items: { type: 'array', minItems: 1, maxItems: 100, items: item },
  shippingAddress: { type: 'string', maxLength: 1000 },
  metadata: { type: 'object', maxProperties: 50, additionalProperties: { type: 'string', maxLength: 500 } },
} as const;

/** PUT body: the whole editable order. */
export const orderBody = {
  type: 'object',
  additionalProperties: false,
  required: ['customerId', 'items'],
  properties: editable,
} as const;

/** PATCH body: a JSON merge patch (RFC 7396) of the editable fields; null removes an optional one. */
export const patchBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    customerId: editable.customerId,
    items: editable.items,
    shippingAddress: { type: ['string', 'null'], maxLength: 1000 },
    metadata: {
      type: ['object', 'null'],
      maxProperties: 50,
      additionalProperties: { type: ['string', 'null'], maxLength: 500 },
    },
  },
} as const;

export const orderSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'order' },
    status: { type: 'string', enum: ['open', 'shipped'] },
    customerId: { type: 'string' },
    items: { type: 'array', items: item },
    shippingAddress: { type: ['string', 'null'] },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    version: { type: 'integer' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    shippedAt: { type: ['string', 'null'] },
  },
} as const;

export const toOrder = (r: OrderRow) => ({
  id: r.id,
  object: 'order' as const,
  status: r.status,
  customerId: r.customer_id,
  items: r.items,
  shippingAddress: r.shipping_address,
  metadata: r.metadata,
  version: r.version,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  shippedAt: r.shipped_at ? new Date(r.shipped_at).toISOString() : null,
});

export const fieldsOf = (r: OrderRow): OrderFields => ({
  customerId: r.customer_id,
  items: r.items,
  ...(r.shipping_address === null ? {} : { shippingAddress: r.shipping_address }),
  metadata: r.metadata,
});

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
} as const;
