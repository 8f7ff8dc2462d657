import { staleWriteProblem, versionETag } from '@surety/conditional';
import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { endpointHealth, listDeliveries, listEndpoints } from '@surety/webhooks';
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
  const params = { params: idParam(ENDPOINT_ID) };
  const load = async (
    q: Queryable,
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
  ) => {
    const endpoint = await w.getEndpoint(q, request.tenant, request.params.id);
    reply.header('etag', versionETag(endpoint.version));
    return endpoint;
  };

  app.post<{ Body: { url: string; eventTypes: string[]; description?: string } & Record<string, unknown> }>(
    '',
    {
      config: {
        idempotency: { required: false },
        sends: ['location', 'etag'],
        problems: ['invalid_webhook_url', 'endpoint_limit_reached'],
      },
      schema: {
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint; the signing secret is in this answer only',
        description:
          'Registers a URL for the event types given. The answer carries the whsec_ signing secret once: ' +
          'store it now (see `secret` for how each signature format uses it).',
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
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: "Pages through the tenant's endpoints, oldest first, without their secrets.",
        tags: ['webhooks'],
        querystring: listQuery(),
        response: { 200: listOf(endpointSchema) },
      },
    },
    async (request) => {
      const page = await listEndpoints(w, app.sql, request.tenant, request.query);
      return { object: 'list', ...page, data: page.data.map((e) => present(e)) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      config: { precondition: 'read', sends: ['etag'] },
      schema: {
        operationId: 'getWebhookEndpoint',
        summary: 'Retrieve a webhook endpoint with its health',
        description:
          'Answers the endpoint with its circuit breaker and 24-hour health, and its ETag for a later ' +
          'PATCH or DELETE.',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request, reply) => {
      const endpoint = await load(app.sql, request, reply);
      const check = routePreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
      if (!check.proceed) return reply.send(check.payload);
      return present(endpoint, { health: await endpointHealth(w, app.sql, request.tenant, endpoint.id) });
    },
  );

  app.patch<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/:id',
    {
      config: {
        idempotency: { required: false },
        precondition: 'required',
        sends: ['etag'],
        problems: ['invalid_webhook_url'],
      },
      schema: {
        operationId: 'updateWebhookEndpoint',
        summary: 'Update a webhook endpoint; If-Match required',
        description: 'Changes the fields sent on the version named by If-Match.',
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
      const updated = await w.updateEndpoint(
        txOf(request),
        request.tenant,
        endpoint.id,
        endpoint.version,
        request.body,
      );
      if (!updated) throw fromConditional(staleWriteProblem(check.result.conditional));
      reply.header('etag', versionETag(updated.version));
      return present(updated);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/:id',
    {
      // DELETE is idempotent by its nature: deleting again is a 404 and changes nothing.
      config: { idempotency: false, precondition: 'optional' },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint (If-Match honoured)',
        description:
          'Deletes the endpoint and stops its deliveries. With If-Match, only the version named is ' +
          'deleted (412 otherwise).',
        tags: ['webhooks'],
        ...params,
        response: { 204: { description: 'Deleted', type: 'null' } },
      },
    },
    async (request, reply) => {
      const endpoint = await w.getEndpoint(app.sql, request.tenant, request.params.id);
      const check = routePreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
      if (!check.proceed) return reply.send(check.payload);
      // The version the precondition passed on is the one deleted: a change committed between the
      // check and the delete makes it 412, not a deletion of what the client never saw.
      const expected = check.result.conditional ? endpoint.version : undefined;
      const deleted = await app.sql.transaction((tx) =>
        w.deleteEndpoint(tx, request.tenant, endpoint.id, expected),
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
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate the signing secret; the old one keeps signing for the overlap',
        description:
          'Issues a new whsec_ secret (in this answer only); deliveries are signed with both until the ' +
          'overlap ends, so receivers can switch without missing one.',
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
      const { endpoint, secret } = await w.rotateSecret(
        txOf(request),
        request.tenant,
        request.params.id,
        overlap,
      );
      return present(endpoint, { secret });
    },
  );

  app.post<{ Params: { id: string } }>(
    '/:id/enable',
    {
      config: { idempotency: { required: false } },
      schema: {
        operationId: 'enableWebhookEndpoint',
        summary: 'Re-enable a disabled endpoint',
        description: 'Deliveries resume; recover the ones failed while it was disabled with /recover.',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request) => present(await w.enableEndpoint(txOf(request), request.tenant, request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } | undefined }>(
    '/:id/disable',
    {
      config: { idempotency: { required: false }, sends: ['etag'] },
      schema: {
        operationId: 'disableWebhookEndpoint',
        description: 'Stops deliveries to the endpoint until it is enabled again.',
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
      await w.disableEndpoint(
        txOf(request),
        request.tenant,
        request.params.id,
        reason ? `by an operator: ${reason}` : 'by an operator',
      );
      return present(await load(txOf(request), request, reply));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/:id/test',
    {
      config: { idempotency: { required: false }, problems: ['endpoint_disabled'] },
      schema: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send a webhook.test event to this endpoint',
        description: 'Publishes a webhook.test event addressed to this endpoint only.',
        tags: ['webhooks'],
        ...params,
        response: {
          202: {
            type: 'object',
            properties: {
              object: { type: 'string', const: 'event' },
              id: { type: 'string' },
              deliveries: { type: 'integer' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const endpoint = await w.getEndpoint(txOf(request), request.tenant, request.params.id);
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
        operationId: 'recoverWebhookEndpoint',
        summary: 'Re-queue the failed deliveries created since a time',
        description: 'Puts the failed deliveries of this endpoint created since `since` back in the queue.',
        tags: ['webhooks'],
        ...params,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['since'],
          properties: { since: { type: 'string', format: 'date-time' } },
        },
        response: {
          202: {
            type: 'object',
            properties: {
              object: { type: 'string', const: 'recovery' },
              endpointId: { type: 'string' },
              requeued: { type: 'integer' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      // Checked by the schema, within what PostgreSQL can be sent (400 date_out_of_range).
      const since = new Date(request.body.since);
      await w.getEndpoint(txOf(request), request.tenant, request.params.id);
      const requeued = await w.recoverEndpoint(txOf(request), request.tenant, request.params.id, since);
      reply.code(202);
      return { object: 'recovery', endpointId: request.params.id, requeued };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: number; cursor?: string; status?: string } }>(
    '/:id/deliveries',
    {
      schema: {
        operationId: 'listEndpointDeliveries',
        summary: "List an endpoint's deliveries, newest first",
        description: 'Pages through the deliveries to this endpoint, optionally of one status.',
        tags: ['webhooks'],
        ...params,
        querystring: listQuery({ status: { type: 'string', enum: ['pending', 'delivered', 'failed'] } }),
        response: { 200: listOf(deliverySchema) },
      },
    },
    async (request) => {
      await w.getEndpoint(app.sql, request.tenant, request.params.id);
      const page = await listDeliveries(w, app.sql, request.tenant, {
        ...request.query,
        endpointId: request.params.id,
      });
      return { object: 'list', ...page, data: page.data.map((d) => ({ ...d, object: 'delivery' })) };
    },
  );
};
