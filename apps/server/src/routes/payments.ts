import { keysetCursor, quoteSchema } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { newId } from '@surety/webhooks/ids';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../problem.js';

/** Payments are listed newest first, by (created_at, id). */
const BY_TIME = keysetCursor('timestamp', 'text');

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

interface PaymentRow {
  id: string;
  amount: string;
  currency: string;
  customer_id: string;
  status: 'succeeded';
  created_at: Date;
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
  /**
   * Whether POST /v1/payments requires an Idempotency-Key. Off only for the benchmark's baseline
   * (bench/idempotency): the same handler in the same transaction (the payment and its outbox event
   * must commit together either way), without claiming or recording a key.
   * @default true
   */
  idempotent?: boolean;
}

export function paymentRoutes(
  app: FastifyInstance,
  schema: string,
  options: PaymentRoutesOptions = {},
): void {
  const idempotent = options.idempotent ?? true;
  const t = `${quoteSchema(schema)}.payments`;
  const insert = {
    name: `surety_payment_insert_${schema}`,
    text: `insert into ${t} (tenant, id, amount, currency, customer_id, status, created_at)
           values ($1, $2, $3, $4, $5, 'succeeded', $6) returning id, amount::text, currency, customer_id, status, created_at`,
  };
  const byId = {
    name: `surety_payment_get_${schema}`,
    text: `select id, amount::text, currency, customer_id, status, created_at from ${t} where tenant = $1 and id = $2`,
  };

  app.post<{ Body: CreatePayment }>(
    '/v1/payments',
    {
      config: { idempotency: idempotent ? true : { required: false } },
      schema: {
        summary: 'Create a payment',
        headers: {
          type: 'object',
          properties: {
            'idempotency-key': { type: 'string', description: 'Required: 1-255 visible ASCII.' },
          },
        },
        body: createPaymentBody,
        response: { 201: paymentSchema },
      },
    },
    async (request, reply) => {
      const { amount, currency, customerId } = request.body;
      const id = newId('pay');
      const { rows } = await txOf(request).query<PaymentRow>(insert, [
        request.tenant,
        id,
        amount,
        currency,
        customerId,
        new Date().toISOString(),
      ]);
      const payment = toPayment(rows[0]!);
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
    '/v1/payments/:id',
    {
      schema: {
        summary: 'Retrieve a payment',
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
        response: { 200: paymentSchema },
      },
    },
    async (request) => {
      const { rows } = await app.sql.query<PaymentRow>(byId, [request.tenant, request.params.id]);
      if (rows.length === 0) throw notFound('payment');
      return toPayment(rows[0]!);
    },
  );

  app.get<{ Querystring: { customerId?: string; limit?: number; cursor?: string } }>(
    '/v1/payments',
    {
      schema: {
        summary: 'List payments, newest first',
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
      const params: unknown[] = [request.tenant];
      let where = 'tenant = $1';
      if (customerId !== undefined) {
        params.push(customerId);
        where += ` and customer_id = $${params.length}`;
      }
      if (cursor !== undefined) {
        const [at, id] = BY_TIME.decode(cursor);
        params.push(at, id);
        where += ` and (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
      }
      params.push(limit + 1);
      const { rows } = await app.sql.query<PaymentRow>(
        `select id, amount::text, currency, customer_id, status, created_at from ${t}
          where ${where} order by created_at desc, id desc limit $${params.length}`,
        params,
      );
      const hasMore = rows.length > limit;
      const data = rows.slice(0, limit).map(toPayment);
      const last = data.at(-1);
      return {
        object: 'list',
        data,
        hasMore,
        nextCursor: hasMore && last ? BY_TIME.encode([last.createdAt, last.id]) : null,
      };
    },
  );
}
