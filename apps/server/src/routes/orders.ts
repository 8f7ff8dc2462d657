import { txOf } from '@surety/idempotency/fastify';
import { Ajv } from 'ajv';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { conditionalUpdate, currentState, sendValidators, type Versioned } from '../conditional-update.js';
import { type OrderFields, type OrderRow, orderData } from '../data/orders.js';
import { mergePatch } from '../merge-patch.js';
import { HttpProblem, notFound } from '../problem.js';
import { routePreconditions } from '../route-config.js';
import { fieldsOf, idParams, orderBody, orderSchema, patchBody, toOrder } from './order-schemas.js';

const validateFields = new Ajv({ allErrors: true, strict: false }).compile(orderBody);

/** An order's validators: its version (ETag) and its last change (Last-Modified). */
const versionOf = (row: OrderRow): Versioned => ({
  version: row.version,
  lastModified: new Date(row.updated_at),
});

export interface OrderRoutesOptions {
  /** The PostgreSQL schema of the service's tables. */
  schema: string;
}

/**
 * Orders: create-or-replace (PUT), retrieve, merge-patch, ship; every write conditional on the
 * version. Registered with a prefix: `app.register(orderRoutes, { prefix: '/v1/orders', schema })`.
 */
export const orderRoutes: FastifyPluginAsync<OrderRoutesOptions> = async (app, options) => {
  const orders = orderData(options.schema);

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

  /** The conditional write of the fields: undefined when another request wrote first. */
  const writeFields = (request: FastifyRequest, id: string, fields: OrderFields, ifVersion: number) =>
    orders.update(txOf(request), {
      tenant: request.tenant,
      id,
      ifVersion,
      fields,
      now: new Date().toISOString(),
    });

  app.put<{ Params: { id: string }; Body: OrderFields }>(
    '/:id',
    {
      config: {
        idempotency: { required: false },
        precondition: 'to-replace',
        sends: ['etag', 'last-modified', 'location'],
      },
      schema: {
        operationId: 'putOrder',
        summary: 'Create or replace an order',
        tags: ['orders'],
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
      const row = await orders.get(txOf(request), { tenant, id });
      const out = await conditionalUpdate(request, reply, {
        current: row && versionOf(row),
        update: (ifVersion) => writeFields(request, id, request.body, ifVersion),
        // Created concurrently by another request since our read: with If-None-Match: * that is a 412.
        create: () =>
          orders.insert(txOf(request), { tenant, id, fields: request.body, now: new Date().toISOString() }),
        versionOf,
      });
      if (out.kind === 'stopped') return out.payload;
      if (out.kind === 'updated') return publish(request, 'order.updated', toOrder(out.row));
      reply.code(201).header('location', `/v1/orders/${id}`);
      return publish(request, 'order.created', toOrder(out.row));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      config: { precondition: 'read', sends: ['etag', 'last-modified'] },
      schema: {
        operationId: 'getOrder',
        summary: 'Retrieve an order',
        description: 'Answers the order with its ETag; If-None-Match with that ETag answers 304.',
        tags: ['orders'],
        params: idParams,
        response: { 200: orderSchema },
      },
    },
    async (request, reply) => {
      const row = await orders.get(app.sql, { tenant: request.tenant, id: request.params.id });
      if (!row) throw notFound('order');
      const check = routePreconditions(request, reply, currentState(versionOf(row)));
      if (!check.proceed) return reply.send(check.payload);
      sendValidators(reply, versionOf(row));
      return toOrder(row);
    },
  );

  app.patch<{ Params: { id: string }; Body: Partial<Record<keyof OrderFields, unknown>> }>(
    '/:id',
    {
      config: {
        idempotency: { required: false },
        precondition: 'required',
        sends: ['etag', 'last-modified'],
        problems: ['order_shipped'],
      },
      schema: {
        operationId: 'updateOrder',
        summary: 'Update an order (JSON merge patch); If-Match required',
        description:
          'Applies an RFC 7396 merge patch (null removes an optional field) to the version named by ' +
          'If-Match, and publishes order.updated. The items of a shipped order cannot change (409).',
        tags: ['orders'],
        params: idParams,
        body: patchBody,
        response: { 200: orderSchema },
      },
    },
    async (request, reply) => {
      const row = await orders.get(txOf(request), { tenant: request.tenant, id: request.params.id });
      if (!row) throw notFound('order');
      const out = await conditionalUpdate(request, reply, {
        current: versionOf(row),
        update: async (ifVersion) => {
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
          return writeFields(request, row.id, merged, ifVersion);
        },
        versionOf,
      });
      if (out.kind === 'stopped') return out.payload;
      return publish(request, 'order.updated', toOrder(out.row));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/:id/ship',
    {
      config: {
        idempotency: true,
        precondition: 'required',
        sends: ['etag', 'last-modified'],
        problems: ['order_already_shipped'],
      },
      schema: {
        operationId: 'shipOrder',
        summary: 'Ship an order; If-Match and Idempotency-Key required',
        description:
          'Marks the order shipped and publishes order.shipped, once: a retry with the same key answers ' +
          'the stored 200; shipping a shipped order under a new key is a 409.',
        tags: ['orders'],
        params: idParams,
        response: { 200: orderSchema },
      },
    },
    async (request, reply) => {
      const row = await orders.get(txOf(request), { tenant: request.tenant, id: request.params.id });
      if (!row) throw notFound('order');
      const out = await conditionalUpdate(request, reply, {
        current: versionOf(row),
        update: async (ifVersion) => {
          if (row.status === 'shipped') {
            throw new HttpProblem(
              409,
              'order_already_shipped',
              'Already shipped',
              'This order was already shipped.',
            );
          }
          return orders.ship(txOf(request), {
            tenant: request.tenant,
            id: row.id,
            ifVersion,
            now: new Date().toISOString(),
          });
        },
        versionOf,
      });
      if (out.kind === 'stopped') return out.payload;
      return publish(request, 'order.shipped', toOrder(out.row));
    },
  );
};
