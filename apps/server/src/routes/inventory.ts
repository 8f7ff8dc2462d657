import { staleWriteProblem, versionETag } from '@surety/conditional';
import { checkPreconditions } from '@surety/conditional/fastify';
import { type Queryable, quoteSchema } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { newId } from '@surety/webhooks/ids';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { fromConditional, HttpProblem, notFound } from '../problem.js';

interface StockRow {
  sku: string;
  quantity: string;
  version: number;
  updated_at: Date;
}

const stockSchema = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    object: { type: 'string', const: 'inventory' },
    quantity: { type: 'integer' },
    version: { type: 'integer' },
    updatedAt: { type: 'string' },
  },
} as const;

const reservationSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'reservation' },
    sku: { type: 'string' },
    quantity: { type: 'integer' },
    remaining: { type: 'integer' },
    createdAt: { type: 'string' },
  },
} as const;

const skuParams = {
  type: 'object',
  required: ['sku'],
  properties: { sku: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' } },
} as const;

const quantityBody = (minimum: number) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['quantity'],
    properties: { quantity: { type: 'integer', minimum, maximum: 1_000_000_000 } },
  }) as const;

export const toStock = (r: StockRow) => ({
  sku: r.sku,
  object: 'inventory' as const,
  quantity: Number(r.quantity),
  version: r.version,
  updatedAt: new Date(r.updated_at).toISOString(),
});

function validators(reply: FastifyReply, row: StockRow) {
  reply.header('etag', versionETag(row.version));
  reply.header('last-modified', new Date(row.updated_at).toUTCString());
}

const current = (row: StockRow | undefined) => ({
  exists: row !== undefined,
  etag: row ? versionETag(row.version) : undefined,
  lastModified: row ? new Date(row.updated_at) : undefined,
});

export function inventoryRoutes(app: FastifyInstance, schema: string): void {
  const t = `${quoteSchema(schema)}.inventory`;
  const r = `${quoteSchema(schema)}.reservations`;
  const read = (q: Queryable, tenant: string, sku: string) =>
    q
      .query<StockRow>(
        `select sku, quantity::text, version, updated_at from ${t} where tenant = $1 and sku = $2`,
        [tenant, sku],
      )
      .then((res) => res.rows[0]);

  app.put<{ Params: { sku: string }; Body: { quantity: number } }>(
    '/v1/inventory/:sku',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Set the stock of a SKU (If-Match to replace, If-None-Match: * to create only)',
        params: skuParams,
        body: quantityBody(0),
        response: { 200: stockSchema, 201: stockSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { sku } = request.params;
      const row = await read(txOf(request), tenant, sku);
      const check = checkPreconditions(request, reply, current(row), { require: row !== undefined });
      if (!check.proceed) return check.payload;
      const now = new Date().toISOString();
      if (row) {
        const { rows } = await txOf(request).query<StockRow>(
          `update ${t} set quantity = $3, version = version + 1, updated_at = $4
            where tenant = $1 and sku = $2 and version = $5 returning sku, quantity::text, version, updated_at`,
          [tenant, sku, request.body.quantity, now, row.version],
        );
        if (rows.length === 0) throw fromConditional(staleWriteProblem(check.result.conditional));
        validators(reply, rows[0]!);
        return toStock(rows[0]!);
      }
      const { rows } = await txOf(request).query<StockRow>(
        `insert into ${t} (tenant, sku, quantity, version, updated_at) values ($1, $2, $3, 1, $4)
         on conflict (tenant, sku) do nothing returning sku, quantity::text, version, updated_at`,
        [tenant, sku, request.body.quantity, now],
      );
      if (rows.length === 0) throw fromConditional(staleWriteProblem(check.result.conditional));
      reply.code(201).header('location', `/v1/inventory/${sku}`);
      validators(reply, rows[0]!);
      return toStock(rows[0]!);
    },
  );

  app.get<{ Params: { sku: string } }>(
    '/v1/inventory/:sku',
    { schema: { summary: 'Stock of a SKU', params: skuParams, response: { 200: stockSchema } } },
    async (request, reply) => {
      const row = await read(app.sql, request.tenant, request.params.sku);
      if (!row) throw notFound('SKU');
      const check = checkPreconditions(request, reply, current(row));
      if (!check.proceed) return reply.send(check.payload);
      validators(reply, row);
      return toStock(row);
    },
  );

  app.post<{ Params: { sku: string }; Body: { quantity: number } }>(
    '/v1/inventory/:sku/reservations',
    {
      config: { idempotency: true },
      schema: {
        summary: 'Reserve stock (Idempotency-Key required); 409 out_of_stock when there is not enough',
        params: skuParams,
        body: quantityBody(1),
        response: { 201: reservationSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { sku } = request.params;
      const { quantity } = request.body;
      // One conditional decrement: never a read-then-write, so concurrent reservations cannot oversell.
      const { rows } = await txOf(request).query<{ quantity: string }>(
        {
          name: `surety_reserve_${schema}`,
          text: `update ${t} set quantity = quantity - $3, version = version + 1, updated_at = $4
                  where tenant = $1 and sku = $2 and quantity >= $3 returning quantity::text`,
        },
        [tenant, sku, quantity, new Date().toISOString()],
      );
      if (rows.length === 0) {
        const exists = await read(txOf(request), tenant, sku);
        if (!exists) throw notFound('SKU');
        throw new HttpProblem(
          409,
          'out_of_stock',
          'Out of stock',
          `Only ${exists.quantity} of ${sku} left; ${quantity} requested.`,
          { available: Number(exists.quantity), requested: quantity },
        );
      }
      const id = newId('res');
      const createdAt = new Date().toISOString();
      await txOf(request).query(
        `insert into ${r} (tenant, id, sku, quantity, created_at) values ($1, $2, $3, $4, $5)`,
        [tenant, id, sku, quantity, createdAt],
      );
      const remaining = Number(rows[0]!.quantity);
      await app.webhooks.publish(txOf(request), {
        tenant,
        type: 'inventory.reserved',
        data: { reservationId: id, sku, quantity, remaining, createdAt },
        resource: `inventory:${sku}`,
      });
      reply.code(201);
      return { id, object: 'reservation', sku, quantity, remaining, createdAt };
    },
  );
}
