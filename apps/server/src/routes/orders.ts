import { staleWriteProblem, versionETag } from '@surety/conditional';
import { checkPreconditions } from '@surety/conditional/fastify';
import { type Queryable, quoteSchema } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { Ajv } from 'ajv';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { mergePatch } from '../merge-patch.js';
import { fromConditional, HttpProblem, notFound } from '../problem.js';

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
const patchBody = {
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

const orderSchema = {
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

interface OrderFields {
  customerId: string;
  items: { sku: string; quantity: number }[];
  shippingAddress?: string;
  metadata?: Record<string, string>;
}

interface OrderRow {
  id: string;
  version: number;
  status: 'open' | 'shipped';
  customer_id: string;
  items: { sku: string; quantity: number }[];
  shipping_address: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  shipped_at: Date | null;
}

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

const fieldsOf = (r: OrderRow): OrderFields => ({
  customerId: r.customer_id,
  items: r.items,
  ...(r.shipping_address === null ? {} : { shippingAddress: r.shipping_address }),
  metadata: r.metadata,
});

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
} as const;

const COLUMNS =
  'id, version, status, customer_id, items, shipping_address, metadata, created_at, updated_at, shipped_at';

const validateFields = new Ajv({ allErrors: true, strict: false }).compile(orderBody);

/** Sets ETag and Last-Modified for an order. */
function validators(reply: FastifyReply, row: OrderRow): void {
  reply.header('etag', versionETag(row.version));
  reply.header('last-modified', new Date(row.updated_at).toUTCString());
}

const current = (row: OrderRow | undefined) => ({
  exists: row !== undefined,
  etag: row ? versionETag(row.version) : undefined,
  lastModified: row ? new Date(row.updated_at) : undefined,
});

export function orderRoutes(app: FastifyInstance, schema: string): void {
  const t = `${quoteSchema(schema)}.orders`;
  const read = (q: Queryable, tenant: string, id: string) =>
    q
      .query<OrderRow>(
        {
          name: `surety_order_get_${schema}`,
          text: `select ${COLUMNS} from ${t} where tenant = $1 and id = $2`,
        },
        [tenant, id],
      )
      .then((r) => r.rows[0]);

  /** Publishes the order's event in the write's own transaction (the outbox) and returns the order. */
  async function publish(request: FastifyRequest, type: string, order: ReturnType<typeof toOrder>) {
    await app.webhooks.publish(txOf(request), {
      tenant: request.tenant,
      type,
      data: order,
      resource: `order:${order.id}`,
    });
    return order;
  }

  /** The conditional write: `… WHERE version = $n`; 0 rows means someone else wrote first. */
  async function update(request: FastifyRequest, row: OrderRow, fields: OrderFields, conditional: boolean) {
    const { rows } = await txOf(request).query<OrderRow>(
      `update ${t} set customer_id = $3, items = $4::jsonb, shipping_address = $5, metadata = $6::jsonb,
              version = version + 1, updated_at = $7
        where tenant = $1 and id = $2 and version = $8
        returning ${COLUMNS}`,
      [
        request.tenant,
        row.id,
        fields.customerId,
        JSON.stringify(fields.items),
        fields.shippingAddress ?? null,
        JSON.stringify(fields.metadata ?? {}),
        new Date().toISOString(),
        row.version,
      ],
    );
    if (rows.length === 0) throw fromConditional(staleWriteProblem(conditional));
    return rows[0]!;
  }

  app.put<{ Params: { id: string }; Body: OrderFields }>(
    '/v1/orders/:id',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Create or replace an order',
        description:
          'Creates the order when it does not exist (send If-None-Match: * to refuse replacing one). ' +
          'Replacing an existing order requires If-Match with its current ETag: 428 without it, 412 when stale.',
        params: idParams,
        body: orderBody,
        response: { 200: orderSchema, 201: orderSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { id } = request.params;
      const row = await read(txOf(request), tenant, id);
      const check = checkPreconditions(request, reply, current(row), { require: row !== undefined });
      if (!check.proceed) return check.payload;
      const conditional = check.result.conditional;
      if (row) {
        const updated = await update(request, row, request.body, conditional);
        validators(reply, updated);
        return publish(request, 'order.updated', toOrder(updated));
      }
      const now = new Date().toISOString();
      const { rows } = await txOf(request).query<OrderRow>(
        `insert into ${t} (tenant, id, version, status, customer_id, items, shipping_address, metadata, created_at, updated_at)
         values ($1, $2, 1, 'open', $3, $4::jsonb, $5, $6::jsonb, $7, $7)
         on conflict (tenant, id) do nothing
         returning ${COLUMNS}`,
        [
          tenant,
          id,
          request.body.customerId,
          JSON.stringify(request.body.items),
          request.body.shippingAddress ?? null,
          JSON.stringify(request.body.metadata ?? {}),
          now,
        ],
      );
      // Created concurrently by another request since our read: with If-None-Match: * that is a 412.
      if (rows.length === 0) throw fromConditional(staleWriteProblem(conditional));
      reply.code(201).header('location', `/v1/orders/${id}`);
      validators(reply, rows[0]!);
      return publish(request, 'order.created', toOrder(rows[0]!));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/orders/:id',
    { schema: { summary: 'Retrieve an order', params: idParams, response: { 200: orderSchema } } },
    async (request, reply) => {
      const row = await read(app.sql, request.tenant, request.params.id);
      if (!row) throw notFound('order');
      const check = checkPreconditions(request, reply, current(row));
      if (!check.proceed) return reply.send(check.payload);
      validators(reply, row);
      return toOrder(row);
    },
  );

  app.patch<{ Params: { id: string }; Body: Partial<Record<keyof OrderFields, unknown>> }>(
    '/v1/orders/:id',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Update an order (JSON merge patch); If-Match required',
        params: idParams,
        body: patchBody,
        response: { 200: orderSchema },
      },
    },
    async (request, reply) => {
      const row = await read(txOf(request), request.tenant, request.params.id);
      if (!row) throw notFound('order');
      const check = checkPreconditions(request, reply, current(row), { require: true });
      if (!check.proceed) return check.payload;
      const merged = mergePatch(fieldsOf(row), request.body) as OrderFields;
      if (!validateFields(merged)) {
        throw new HttpProblem(
          400,
          'validation_failed',
          'Invalid request',
          'The patched order is not valid.',
          {
            errors: (validateFields.errors ?? []).map((e) => ({
              in: 'body',
              path: e.instancePath || '/',
              message: e.message,
            })),
          },
        );
      }
      if (row.status === 'shipped' && request.body.items !== undefined) {
        throw new HttpProblem(
          409,
          'order_shipped',
          'Order shipped',
          'The items of a shipped order cannot change.',
        );
      }
      const updated = await update(request, row, merged, check.result.conditional);
      validators(reply, updated);
      return publish(request, 'order.updated', toOrder(updated));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/v1/orders/:id/ship',
    {
      config: { idempotency: true },
      schema: {
        summary: 'Ship an order; If-Match and Idempotency-Key required',
        params: idParams,
        response: { 200: orderSchema },
      },
    },
    async (request, reply) => {
      const row = await read(txOf(request), request.tenant, request.params.id);
      if (!row) throw notFound('order');
      const check = checkPreconditions(request, reply, current(row), { require: true });
      if (!check.proceed) return check.payload;
      if (row.status === 'shipped') {
        throw new HttpProblem(
          409,
          'order_already_shipped',
          'Already shipped',
          'This order was already shipped.',
        );
      }
      const now = new Date().toISOString();
      const { rows } = await txOf(request).query<OrderRow>(
        `update ${t} set status = 'shipped', shipped_at = $3, updated_at = $3, version = version + 1
          where tenant = $1 and id = $2 and version = $4 and status = 'open'
          returning ${COLUMNS}`,
        [request.tenant, row.id, now, row.version],
      );
      if (rows.length === 0) throw fromConditional(staleWriteProblem(check.result.conditional));
      validators(reply, rows[0]!);
      return publish(request, 'order.shipped', toOrder(rows[0]!));
    },
  );
}
