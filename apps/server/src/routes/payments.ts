import type { FastifyPluginAsync } from 'fastify';
import { PAYMENTS_BY_TIME, paymentData } from '../data/payments.js';
import { directFlow, type PaymentInput, type PaymentOperation, toPayment } from '../payments/operation.js';
import { notFound } from '../problem.js';

/** ISO 4217 codes known to this Node.js build's ICU. */
const CURRENCIES = Intl.supportedValuesOf('currency');

export type { Payment } from '../payments/operation.js';

const paymentSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'payment' },
    amount: { type: 'string' },
    currency: { type: 'string' },
    customerId: { type: 'string' },
    status: {
      type: 'string',
      enum: ['processing', 'succeeded', 'failed'],
      description: '`processing` while the provider is charged; then `succeeded` or `failed` (final).',
    },
    failureCode: {
      type: ['string', 'null'],
      description:
        "Why a failed payment failed: the provider's decline code (generic_decline, insufficient_funds, …), provider_invalid_response, provider_rejected or provider_unavailable; null otherwise.",
    },
    createdAt: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'object', 'amount', 'currency', 'customerId', 'status', 'failureCode', 'createdAt'],
} as const;

/** Which payment provider charges: shown by the dashboard, so a demo never passes for real money. */
const PROVIDER = {
  type: 'string',
  enum: ['simulated', 'external'],
  description:
    '`simulated`: the in-process simulated provider (SURETY_PSP_URL unset: no real money moves); `external`: SURETY_PSP_URL.',
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
    paymentMethod: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_]+$',
      description:
        'What the provider charges: its payment method reference. With the simulated provider, a test card: 4242424242424242 succeeds, 4000000000000002 is declined, 4000000000009995 has insufficient funds. @default 4242424242424242',
    },
  },
} as const;

interface CreatePayment {
  amount: string;
  currency: string;
  customerId: string;
  paymentMethod?: string;
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
  /** The phased operation that creates and charges a payment (payments/operation.ts). */
  operation: PaymentOperation;
}

/**
 * Payments: create (Idempotency-Key required), retrieve, list. Registered with a prefix:
 * `app.register(paymentRoutes, { prefix: '/v1/payments', schema })`.
 */
export const paymentRoutes: FastifyPluginAsync<PaymentRoutesOptions> = async (app, options) => {
  const idempotent = options.idempotent ?? true;
  const payments = paymentData(options.schema);

  const { operation } = options;
  const inputOf = (request: { tenant: string; body: CreatePayment }): PaymentInput => ({
    tenant: request.tenant,
    amount: request.body.amount,
    currency: request.body.currency,
    customerId: request.body.customerId,
    paymentMethod: request.body.paymentMethod ?? '4242424242424242',
  });

  app.post<{ Body: CreatePayment }>(
    '',
    {
      // Without the layer (the benchmark's baseline) the route says so: false, not absent.
      config: { idempotency: idempotent ? { phased: operation } : false, sends: ['location'] },
      schema: {
        operationId: 'createPayment',
        summary: 'Create a payment and charge it',
        description:
          'Creates a payment (`processing`, payment.created), charges it at the payment provider with an ' +
          'idempotency key derived from yours, and answers 201 with its final status: `succeeded` ' +
          '(payment.succeeded) or `failed` with a `failureCode` (payment.failed), each event committed with ' +
          'the status change. No transaction is open while the provider is called. When the provider gives ' +
          'no definitive answer within the deadline the answer is 202 `processing` with Retry-After, not ' +
          'stored: retry with the same key to resume (the provider is asked again with the same derived key, ' +
          'so it never charges twice); the service also finishes it by itself. A retry after the 201 replays it.',
        tags: ['payments'],
        body: createPaymentBody,
        response: { 201: paymentSchema, 202: paymentSchema },
      },
    },
    async (request, reply) => {
      if (idempotent) return inputOf(request);
      // The benchmark's baseline: the same steps without the idempotency layer.
      const answer = await operation.run(directFlow(app.sql, request.tenant), inputOf(request));
      reply.code(answer.status).headers(answer.headers);
      return JSON.parse(answer.body);
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

  app.get<{ Params: { id: string } }>(
    '/:id/steps',
    {
      schema: {
        operationId: 'listPaymentSteps',
        summary: "List a payment's steps",
        description:
          "What happened to one of this tenant's payments, oldest first: `created`, the `charge` at the " +
          'provider (its charge id, or the failure code), then `succeeded` or `failed`. `provider` says ' +
          'whether the payment provider is the simulated one (SURETY_PSP_URL unset: no real money moves). ' +
          "Another tenant's id is a 404.",
        tags: ['payments'],
        params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } },
        response: {
          200: {
            type: 'object',
            properties: {
              object: { type: 'string', const: 'list' },
              data: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    step: { type: 'string', description: 'created, charge, succeeded or failed' },
                    at: { type: 'string', format: 'date-time' },
                    detail: { type: 'string' },
                  },
                  required: ['step', 'at'],
                },
              },
              provider: PROVIDER,
            },
            required: ['object', 'data', 'provider'],
          },
        },
      },
    },
    async (request) => {
      const steps = await payments.steps(app.sql, { tenant: request.tenant, id: request.params.id });
      if (steps === undefined) throw notFound('payment');
      return { object: 'list', data: steps, provider: app.payments.simulated ? 'simulated' : 'external' };
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
              provider: PROVIDER,
            },
          },
        },
      },
    },
    async (request) => {
      const { customerId, cursor } = request.query;
      const limit = request.query.limit ?? 20;
      const rows = await payments.list(app.reads, {
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
        provider: app.payments.simulated ? 'simulated' : 'external',
      };
    },
  );
};
