import { staleWriteProblem, versionETag } from '@surety/conditional';
import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { type Endpoint, EndpointNotFoundError } from '@surety/webhooks';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { fromConditional, HttpProblem } from '../problem.js';
import { routePreconditions } from '../route-config.js';
import { ENDPOINT_ID, editable, endpointSchema, present } from './endpoint-schemas.js';
import { deliverySchema, idParam, listOf, listQuery } from './schemas.js';

/**
 * Webhook endpoints: create, list, retrieve (with health), update, delete, rotate, enable, disable,
 * test, recover, and their deliveries. Registered with a prefix:
 * `app.register(endpointRoutes, { prefix: '/v1/webhook-endpoints' })`.
 */
export const endpointRoutes: FastifyPluginAsync = async (app) => {
  const w = app.webhooks;
  /** A lookup answers undefined for a missing endpoint; a route answers 404 (problem.ts). */
  const found = (endpoint: Endpoint | undefined): Endpoint => {
    if (!endpoint) throw new EndpointNotFoundError();
    return endpoint;
  };
  const params = { params: idParam(ENDPOINT_ID) };
  const load = async (
    q: Queryable,
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
  ) => {
    const endpoint = found(await w.getEndpoint(q, { tenant: request.tenant, id: request.params.id }));
    reply.header('etag', versionETag(endpoint.version));
    return endpoint;
  };

  app.post<{ Body: { url: string; eventTypes: string[]; description?: string } & Record<string, unknown> }>(
    '',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Create a webhook endpoint; the signing secret is in this answer only',
        tags: ['webhooks'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['url', 'eventTypes'],
          properties: editable,
        },
        response: { 201: endpointSchema },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await w.createEndpoint(txOf(request), {
        tenant: request.tenant,
        ...request.body,
      });
      reply
        .code(201)
        .header('location', `/v1/webhook-endpoints/${endpoint.id}`)
        .header('etag', versionETag(endpoint.version));
      return present(endpoint, { secret });
    },
  );

  app.get<{ Querystring: { limit?: number; cursor?: string } }>(
    '',
    {
      schema: {
        summary: 'List webhook endpoints',
        tags: ['webhooks'],
        querystring: listQuery(),
        response: { 200: listOf(endpointSchema) },
      },
    },
    async (request) => {
      const page = await w.listEndpoints(app.sql, { ...request.query, tenant: request.tenant });
      return { object: 'list', ...page, data: page.data.map((e) => present(e)) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      config: { precondition: 'read' },
      schema: {
        summary: 'Retrieve a webhook endpoint with its health',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request, reply) => {
      const endpoint = await load(app.sql, request, reply);
      const check = routePreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
      if (!check.proceed) return reply.send(check.payload);
      const health = await w.getEndpointHealth(app.sql, { tenant: request.tenant, id: endpoint.id });
      if (!health) throw new EndpointNotFoundError(); // deleted since `load`
      return present(endpoint, { health });
    },
  );

  app.patch<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/:id',
    {
      config: { idempotency: { required: false }, precondition: 'required' },
      schema: {
        summary: 'Update a webhook endpoint; If-Match required',
        tags: ['webhooks'],
        ...params,
        body: { type: 'object', additionalProperties: false, minProperties: 1, properties: editable },
        response: { 200: endpointSchema },
      },
    },
    async (request, reply) => {
      const endpoint = await load(txOf(request), request, reply);
      const check = routePreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
      if (!check.proceed) return check.payload;
      const updated = await w.updateEndpoint(txOf(request), {
        tenant: request.tenant,
        id: endpoint.id,
        ifVersion: endpoint.version,
        patch: request.body,
      });
      if (!updated) throw fromConditional(staleWriteProblem(check.result.conditional));
      reply.header('etag', versionETag(updated.version));
      return present(updated);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/:id',
    {
      config: { precondition: 'optional' },
      schema: { summary: 'Delete a webhook endpoint (If-Match honoured)', tags: ['webhooks'], ...params },
    },
    async (request, reply) => {
      const endpoint = found(await w.getEndpoint(app.sql, { tenant: request.tenant, id: request.params.id }));
      const check = routePreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
      if (!check.proceed) return reply.send(check.payload);
      // The version the precondition passed on is the one deleted: a change committed between the
      // check and the delete makes it 412, not a deletion of what the client never saw.
      const expected = check.result.conditional ? endpoint.version : undefined;
      const deleted = await app.sql.transaction((tx) =>
        w.deleteEndpoint(tx, { tenant: request.tenant, id: endpoint.id, ifVersion: expected }),
      );
      if (!deleted) throw fromConditional(staleWriteProblem(true));
      return reply.code(204).send();
    },
  );

  app.post<{ Params: { id: string }; Body: { overlapSeconds?: number } | undefined }>(
    '/:id/rotate-secret',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Rotate the signing secret; the old one keeps signing for the overlap',
        tags: ['webhooks'],
        ...params,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { overlapSeconds: { type: 'integer', minimum: 0, maximum: 604_800, default: 86_400 } },
        },
        response: { 200: endpointSchema },
      },
    },
    async (request) => {
      const overlap = (request.body?.overlapSeconds ?? 86_400) * 1000;
      const { endpoint, secret } = await w.rotateSecret(txOf(request), {
        tenant: request.tenant,
        id: request.params.id,
        overlapMs: overlap,
      });
      return present(endpoint, { secret });
    },
  );

  app.post<{ Params: { id: string } }>(
    '/:id/enable',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Re-enable a disabled endpoint',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request) =>
      present(await w.enableEndpoint(txOf(request), { tenant: request.tenant, id: request.params.id })),
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } | undefined }>(
    '/:id/disable',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary:
          'Disable an endpoint: no deliveries until re-enabled; its queued ones are failed (recover them ' +
          'after re-enabling) and endpoint.disabled is published. Disabling a disabled endpoint changes nothing.',
        tags: ['webhooks'],
        ...params,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { reason: { type: 'string', minLength: 1, maxLength: 200 } },
        },
        response: { 200: endpointSchema },
      },
    },
    async (request, reply) => {
      const reason = request.body?.reason?.trim();
      // Changes nothing when the endpoint is disabled already, or is not the tenant's (then `load`
      // answers 404); `load` reads the endpoint as it now is and sets its ETag.
      await w.disableEndpoint(txOf(request), {
        tenant: request.tenant,
        id: request.params.id,
        reason: reason ? `by an operator: ${reason}` : 'by an operator',
      });
      return present(await load(txOf(request), request, reply));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/:id/test',
    {
      config: { idempotency: { required: false } },
      schema: { summary: 'Send a webhook.test event to this endpoint', tags: ['webhooks'], ...params },
    },
    async (request, reply) => {
      const endpoint = found(
        await w.getEndpoint(txOf(request), { tenant: request.tenant, id: request.params.id }),
      );
      if (endpoint.status !== 'enabled') {
        throw new HttpProblem(
          409,
          'endpoint_disabled',
          'Endpoint disabled',
          'Enable the endpoint before testing it.',
        );
      }
      const event = await w.publish(txOf(request), {
        tenant: request.tenant,
        type: 'webhook.test',
        data: { message: 'This is a test event from Surety.', endpointId: endpoint.id },
        endpointId: endpoint.id,
      });
      reply.code(202);
      return { object: 'event', id: event.id, deliveries: event.deliveries };
    },
  );

  app.post<{ Params: { id: string }; Body: { since: string } }>(
    '/:id/recover',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Re-queue the failed deliveries created since a time',
        tags: ['webhooks'],
        ...params,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['since'],
          properties: { since: { type: 'string', format: 'date-time' } },
        },
      },
    },
    async (request, reply) => {
      // Checked by the schema, within what PostgreSQL can be sent (400 date_out_of_range).
      const since = new Date(request.body.since);
      found(await w.getEndpoint(txOf(request), { tenant: request.tenant, id: request.params.id }));
      const requeued = await w.recoverEndpoint(txOf(request), {
        tenant: request.tenant,
        endpointId: request.params.id,
        since,
      });
      reply.code(202);
      return { object: 'recovery', endpointId: request.params.id, requeued };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: number; cursor?: string; status?: string } }>(
    '/:id/deliveries',
    {
      schema: {
        summary: "List an endpoint's deliveries, newest first",
        tags: ['webhooks'],
        ...params,
        querystring: listQuery({ status: { type: 'string', enum: ['pending', 'delivered', 'failed'] } }),
        response: { 200: listOf(deliverySchema) },
      },
    },
    async (request) => {
      found(await w.getEndpoint(app.sql, { tenant: request.tenant, id: request.params.id }));
      const page = await w.listDeliveries(app.sql, {
        ...request.query,
        tenant: request.tenant,
        endpointId: request.params.id,
      });
      return { object: 'list', ...page, data: page.data.map((d) => ({ ...d, object: 'delivery' })) };
    },
  );
};
