import { txOf } from '@surety/idempotency/fastify';
import { newId } from '@surety/webhooks/ids';
import type { FastifyPluginAsync } from 'fastify';
import { conditionalUpdate, currentState, sendValidators, type Versioned } from '../conditional-update.js';
import { inventoryData, type StockRow } from '../data/inventory.js';
import { HttpProblem, notFound } from '../problem.js';
import { routePreconditions } from '../route-config.js';

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

/** A SKU's validators: its version (ETag) and its last change (Last-Modified). */
const versionOf = (row: StockRow): Versioned => ({
  version: row.version,
  lastModified: new Date(row.updated_at),
});

export interface InventoryRoutesOptions {
  /** The PostgreSQL schema of the service's tables. */
  schema: string;
}

/**
 * Inventory: set the stock of a SKU (conditional), read it, reserve from it. Registered with a
 * prefix: `app.register(inventoryRoutes, { prefix: '/v1/inventory', schema })`.
 */
export const inventoryRoutes: FastifyPluginAsync<InventoryRoutesOptions> = async (app, options) => {
  const stock = inventoryData(options.schema);

  app.put<{ Params: { sku: string }; Body: { quantity: number } }>(
    '/:sku',
    {
      config: {
        idempotency: { required: false },
        precondition: 'to-replace',
        sends: ['etag', 'last-modified', 'location'],
      },
      schema: {
        operationId: 'setStock',
        summary: 'Set the stock of a SKU (If-Match to replace, If-None-Match: * to create only)',
        description:
          'Creates the SKU with this quantity (201) or replaces its quantity (200); replacing requires ' +
          'If-Match with its current ETag.',
        tags: ['inventory'],
        params: skuParams,
        body: quantityBody(0),
        response: { 200: stockSchema, 201: stockSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { sku } = request.params;
      const { quantity } = request.body;
      const row = await stock.get(txOf(request), { tenant, sku });
      const now = new Date().toISOString();
      const out = await conditionalUpdate(request, reply, {
        current: row && versionOf(row),
        update: (ifVersion) => stock.update(txOf(request), { tenant, sku, quantity, ifVersion, now }),
        create: () => stock.insert(txOf(request), { tenant, sku, quantity, now }),
        versionOf,
      });
      if (out.kind === 'stopped') return out.payload;
      if (out.kind === 'created') reply.code(201).header('location', `/v1/inventory/${sku}`);
      return toStock(out.row);
    },
  );

  app.get<{ Params: { sku: string } }>(
    '/:sku',
    {
      config: { precondition: 'read', sends: ['etag', 'last-modified'] },
      schema: {
        operationId: 'getStock',
        summary: 'Stock of a SKU',
        description: 'Answers the quantity in stock with its ETag; If-None-Match with that ETag answers 304.',
        tags: ['inventory'],
        params: skuParams,
        response: { 200: stockSchema },
      },
    },
    async (request, reply) => {
      const row = await stock.get(app.sql, { tenant: request.tenant, sku: request.params.sku });
      if (!row) throw notFound('SKU');
      const check = routePreconditions(request, reply, currentState(versionOf(row)));
      if (!check.proceed) return reply.send(check.payload);
      sendValidators(reply, versionOf(row));
      return toStock(row);
    },
  );

  app.post<{ Params: { sku: string }; Body: { quantity: number } }>(
    '/:sku/reservations',
    {
      config: { idempotency: true, problems: ['out_of_stock'] },
      schema: {
        operationId: 'createReservation',
        summary: 'Reserve stock (Idempotency-Key required); 409 out_of_stock when there is not enough',
        description:
          'Takes the quantity from the stock and publishes inventory.reserved, once per key. Not enough ' +
          'stock is a 409 out_of_stock, which is stored with the key and replayed like a success.',
        tags: ['inventory'],
        params: skuParams,
        body: quantityBody(1),
        response: { 201: reservationSchema },
      },
    },
    async (request, reply) => {
      const { tenant } = request;
      const { sku } = request.params;
      const { quantity } = request.body;
      const left = await stock.decrement(txOf(request), {
        tenant,
        sku,
        quantity,
        now: new Date().toISOString(),
      });
      if (left === undefined) {
        const exists = await stock.get(txOf(request), { tenant, sku });
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
      await stock.insertReservation(txOf(request), { tenant, id, sku, quantity, createdAt });
      const remaining = Number(left);
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
};
