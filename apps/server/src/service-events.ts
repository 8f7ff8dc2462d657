import {
  createRegistry,
  type EventDefinition,
  type EventRegistry,
  type JsonSchema,
  type RegistryOptions,
} from '@surety/events';
import { dateTime, prefixedId } from './event-schema-parts.js';
import { operationalEvents } from './operational-events.js';

// The events of the Surety service: its catalogue, which @surety/events (a library for any catalogue)
// no longer ships (issue 34). Schemas describe `data`; the envelope around it is @surety/events'. Constraints mirror what the API accepts, so that a tightening later is visible
// to the compatibility checker as a breaking change.

const sku: JsonSchema = {
  type: 'string',
  pattern: '^[A-Za-z0-9_.-]{1,64}$',
  description: 'Stock-keeping unit.',
};
const customerId: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Your identifier of the customer, as sent when the resource was created.',
};

const payment: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'amount', 'currency', 'customerId', 'status', 'createdAt'],
  properties: {
    id: prefixedId('pay', 'The payment id.'),
    object: { type: 'string', const: 'payment' },
    amount: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,17}$',
      description:
        'Amount in minor units (cents) as a decimal string, so that no JSON parser rounds it: a positive integer of at most 18 digits.',
    },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency code, upper case.' },
    customerId,
    status: {
      type: 'string',
      enum: ['processing', 'succeeded', 'failed'],
      description:
        '`processing` while the payment provider is being charged, then `succeeded` or `failed` (final). Payments made before charging existed are `succeeded`.',
    },
    failureCode: {
      type: ['string', 'null'],
      pattern: '^[a-z0-9_]{1,64}$',
      description:
        'Why a `failed` payment failed: the decline code of the provider (`generic_decline`, `insufficient_funds`, …), or `provider_invalid_response`, `provider_rejected`, `provider_unavailable`. Null otherwise.',
    },
    createdAt: dateTime('When the payment was created.'),
  },
};

const order: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'object',
    'status',
    'customerId',
    'items',
    'shippingAddress',
    'metadata',
    'version',
    'createdAt',
    'updatedAt',
    'shippedAt',
  ],
  properties: {
    id: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description: 'The order id, chosen by the client that created it (`PUT /v1/orders/{id}`).',
    },
    object: { type: 'string', const: 'order' },
    status: { type: 'string', enum: ['open', 'shipped'] },
    customerId,
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sku', 'quantity'],
        properties: { sku, quantity: { type: 'integer', minimum: 1 } },
      },
    },
    shippingAddress: {
      type: ['string', 'null'],
      description: 'Free-form address; null when none was given.',
    },
    metadata: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'Your own string key/value pairs.',
    },
    version: {
      type: 'integer',
      minimum: 1,
      description:
        'The order version after the change (its ETag is derived from it). Apply an event only if its version is higher than the one you hold.',
    },
    createdAt: dateTime('When the order was created.'),
    updatedAt: dateTime('When the order last changed.'),
    shippedAt: {
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When it shipped; null until then.',
    },
  },
};

const orderSample = {
  id: 'ord_2026_0042',
  object: 'order',
  status: 'open',
  customerId: 'cus_81',
  items: [
    { sku: 'TSHIRT-M-BLUE', quantity: 2 },
    { sku: 'MUG-01', quantity: 1 },
  ],
  shippingAddress: '1 Infinite Loop, Cupertino, CA 95014, US',
  metadata: { channel: 'web' },
  version: 1,
  createdAt: '2026-11-02T09:30:00.000Z',
  updatedAt: '2026-11-02T09:30:00.000Z',
  shippedAt: null,
};

/**
 * The events the Surety service publishes; `serviceRegistry()` starts with these.
 * @example
 * const registry = createRegistry({ events: [...serviceEvents, myEvent] });
 */
export const serviceEvents: readonly EventDefinition[] = [
  {
    type: 'payment.created',
    description:
      'A payment was created (`POST /v1/payments`), `processing` until the provider is charged. Published once per payment, in the same transaction that stores it: a retried POST with the same Idempotency-Key publishes nothing new.',
    schema: payment,
    sample: {
      id: 'pay_7Hq2LmXc81TbWnY3sA4fKq',
      object: 'payment',
      amount: '1999',
      currency: 'EUR',
      customerId: 'cus_81',
      status: 'processing',
      failureCode: null,
      createdAt: '2026-11-02T09:31:12.345Z',
    },
  },
  {
    type: 'payment.succeeded',
    description:
      'The payment provider charged the payment. Published exactly once per payment, in the same transaction as its status change to `succeeded`.',
    schema: payment,
    sample: {
      id: 'pay_7Hq2LmXc81TbWnY3sA4fKq',
      object: 'payment',
      amount: '1999',
      currency: 'EUR',
      customerId: 'cus_81',
      status: 'succeeded',
      failureCode: null,
      createdAt: '2026-11-02T09:31:12.345Z',
    },
  },
  {
    type: 'payment.failed',
    description:
      'The payment was not charged: declined by the provider (`failureCode` is its decline code), refused, or the provider gave no answer that could be understood. Published exactly once per payment, in the same transaction as its status change to `failed`.',
    schema: payment,
    sample: {
      id: 'pay_7Hq2LmXc81TbWnY3sA4fKq',
      object: 'payment',
      amount: '1999',
      currency: 'EUR',
      customerId: 'cus_81',
      status: 'failed',
      failureCode: 'insufficient_funds',
      createdAt: '2026-11-02T09:31:12.345Z',
    },
  },
  {
    type: 'order.created',
    description:
      'An order was created (`PUT /v1/orders/{id}` on an id that did not exist). `data` is the order.',
    schema: order,
    sample: orderSample,
  },
  {
    type: 'order.updated',
    description:
      'An order changed (`PUT` or `PATCH /v1/orders/{id}`). `data` is the whole order after the change; use `data.version` to discard stale updates.',
    schema: order,
    sample: {
      ...orderSample,
      shippingAddress: '10 Downing Street, London SW1A 2AA, GB',
      version: 2,
      updatedAt: '2026-11-02T10:05:00.000Z',
    },
  },
  {
    type: 'order.shipped',
    description:
      'An order shipped (`POST /v1/orders/{id}/ship`). `data` is the order, with `status: "shipped"` and `shippedAt` set.',
    schema: order,
    sample: {
      ...orderSample,
      status: 'shipped',
      version: 3,
      updatedAt: '2026-11-03T16:00:00.000Z',
      shippedAt: '2026-11-03T16:00:00.000Z',
    },
  },
  {
    type: 'inventory.reserved',
    description:
      'Stock was reserved for a SKU (`POST /v1/inventory/{sku}/reservations`). `remaining` is the stock left after this reservation.',
    schema: {
      type: 'object',
      required: ['reservationId', 'sku', 'quantity', 'remaining', 'createdAt'],
      properties: {
        reservationId: prefixedId('res', 'The reservation id.'),
        sku,
        quantity: { type: 'integer', minimum: 1, description: 'Units reserved.' },
        remaining: {
          type: 'integer',
          minimum: 0,
          description: 'Units still in stock after this reservation.',
        },
        createdAt: dateTime('When the reservation was made.'),
      },
    },
    sample: {
      reservationId: 'res_Zr2LmXc81TbWnY3sA4fKq9',
      sku: 'TSHIRT-M-BLUE',
      quantity: 2,
      remaining: 48,
      createdAt: '2026-11-02T09:30:01.000Z',
    },
  },
  {
    type: 'endpoint.disabled',
    reserved: true,
    description:
      'One of your webhook endpoints was disabled: it answered 410 Gone, failed for days, or an operator disabled it. Its queued deliveries were failed; re-enable the endpoint and replay them once it is fixed. Sent to your other endpoints subscribed to this type.',
    schema: {
      type: 'object',
      required: ['endpointId', 'url', 'reason', 'disabledAt', 'failedDeliveries'],
      properties: {
        endpointId: prefixedId('we', 'The disabled endpoint.'),
        url: { type: 'string', description: 'Its URL.' },
        reason: { type: 'string', description: 'Why it was disabled, for people (not a stable code).' },
        disabledAt: dateTime('When it was disabled.'),
        failedDeliveries: {
          type: 'integer',
          minimum: 0,
          description: 'Queued deliveries that were failed when it was disabled (replayable).',
        },
      },
    },
    sample: {
      endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2',
      url: 'https://hooks.example.com/surety',
      reason: 'the endpoint answered 410 Gone',
      disabledAt: '2026-11-04T02:00:00.000Z',
      failedDeliveries: 3,
    },
  },
  ...operationalEvents,
  {
    type: 'webhook.test',
    reserved: true,
    description:
      'A test event, sent on request to one endpoint only, to check connectivity and signature verification. Not sent to other endpoints, whatever they subscribe to.',
    schema: {
      type: 'object',
      required: ['message', 'endpointId'],
      properties: {
        message: { type: 'string' },
        endpointId: { type: 'string', description: 'The endpoint the test was sent to.' },
      },
    },
    sample: { message: 'Hello from Surety', endpointId: 'we_LmXc81TbWnY3sA4fKq9Zr2' },
  },
];

/** A registry holding the service's events (and the other options given), ready to validate. */
export const serviceRegistry = (options: Omit<RegistryOptions, 'events'> = {}): EventRegistry =>
  createRegistry({ ...options, events: serviceEvents });
