import { txOf } from '@surety/idempotency/fastify';
import { newId } from '@surety/webhooks/ids';
import type { FastifyPluginAsync } from 'fastify';
import { PAYMENTS_BY_TIME, type PaymentRow, paymentData } from '../data/payments.js';
import { notFound } from '../problem.js';

/** ISO 4217 codes known to this Node.js build's ICU. */
const CURRENCIES = Intl.supportedValuesOf('currency');

export interface Payment {
  id: string;
  object: 'payment';
  amount: string;
  currency: string;
  customerId: string;
  status: 'succeeded';
  createdAt: string;
}

const toPayment = (r: PaymentRow): Payment => ({
  id: r.id,
  object: 'payment',
  amount: String(r.amount),
  currency: r.currency,
  customerId: r.customer_id,
  status: r.status,
  createdAt: new Date(r.created_at).toISOString(),
});

const paymentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'payment' },
    amount: { type: 'string' },
    currency: { type: 'string' },
    customerId: { type: 'string' },
    status: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'object', 'amount', 'currency', 'customerId', 'status', 'createdAt'],
} as const;

export const createPaymentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['amount', 'currency', 'customerId'],
  properties: {
    amount: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,17}$',
      description:
        'Amount in minor units (cents) as a decimal string: a positive integer of at most 18 digits.',
    },
    currency: { type: 'string', enum: CURRENCIES, description: 'ISO 4217 code, upper case (USD).' },
    customerId: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  },
} as const;

interface CreatePayment {
  amount: string;
  currency: string;
  customerId: string;
}

export interface PaymentRoutesOptions {
  /** The PostgreSQL schema of the service's tables. */
  schema: string;
  /**
   * Whether POST /v1/payments requires an Idempotency-Key. Off only for the benchmark's baseline
   * (bench/idempotency): the same handler in the same transaction (the payment and its outbox event
   * must commit together either way), without claiming or recording a key.
   * @default true
   */
  idempotent?: boolean;
}

/**
 * Payments: create (Idempotency-Key required), retrieve, list. Registered with a prefix:
 * `app.register(paymentRoutes, { prefix: '/v1/payments', schema })`.
 */
export const paymentRoutes: FastifyPluginAsync<PaymentRoutesOptions> = async (app, options) => {
  const idempotent = options.idempotent ?? true;
  const payments = paymentData(options.schema);

  app.post<{ Body: CreatePayment }>(
    '',
    {
      config: { idempotency: idempotent ? true : { required: false }, sends: ['location'] },
      schema: {
        operationId: 'createPayment',
        summary: 'Create a payment',
        description:
          'Creates a payment and publishes payment.created in the same transaction. The Idempotency-Key ' +
          'makes a retry safe: the same key and body answer the stored 201 again, and no second payment is made.',
        tags: ['payments'],
        body: createPaymentBody,
        response: { 201: paymentSchema },
      },
    },
    async (request, reply) => {
      const { amount, currency, customerId } = request.body;
      const id = newId('pay');
      const row = await payments.insert(txOf(request), {
        tenant: request.tenant,
        id,
        amount,
        currency,
        customerId,
        createdAt: new Date().toISOString(),
      });
      const payment = toPayment(row);
      await app.webhooks.publish(txOf(request), {
        tenant: request.tenant,
        type: 'payment.created',
        data: payment,
        resource: `payment:${id}`,
      });
      reply.code(201).header('location', `/v1/payments/${id}`);
      return payment;
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      schema: {
        operationId: 'getPayment',
        summary: 'Retrieve a payment',
        description: "Answers one of this tenant's payments by id; another tenant's id is a 404.",
        tags: ['payments'],
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: paymentSchema },
      },
    },
    async (request) => {
      const row = await payments.get(app.sql, { tenant: request.tenant, id: request.params.id });
      if (row === undefined) throw notFound('payment');
      return toPayment(row);
    },
  );

  app.get<{ Querystring: { customerId?: string; limit?: number; cursor?: string } }>(
    '',
    {
      schema: {
        operationId: 'listPayments',
        summary: 'List payments, newest first',
        description: 'Pages through the payments, optionally of one customer, with an opaque cursor.',
        tags: ['payments'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            customerId: { type: 'string', maxLength: 255 },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            cursor: { type: 'string', maxLength: 512 },
          },
        },
        response: {
          200: {
            type: 'object',
            properties: {
              object: { type: 'string', const: 'list' },
              data: { type: 'array', items: paymentSchema },
              hasMore: { type: 'boolean' },
              nextCursor: { type: ['string', 'null'] },
            },
          },
        },
      },
    },
    async (request) => {
      const { customerId, cursor } = request.query;
      const limit = request.query.limit ?? 20;
      const rows = await payments.list(app.sql, {
        tenant: request.tenant,
        ...(customerId === undefined ? {} : { customerId }),
        ...(cursor === undefined ? {} : { after: PAYMENTS_BY_TIME.decode(cursor) }),
        limit: limit + 1,
      });
      const hasMore = rows.length > limit;
      const kept = rows.slice(0, limit);
      const last = kept.at(-1);
      return {
        object: 'list',
        data: kept.map(toPayment),
        hasMore,
        nextCursor: hasMore && last ? PAYMENTS_BY_TIME.encode([last.created_at_us, last.id]) : null,
      };
    },
  );
};
