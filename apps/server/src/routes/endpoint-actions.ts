import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from '../problem.js';
import { loadEndpoint, visibleEndpoint } from './endpoint-lookup.js';
import { ENDPOINT_ID, endpointSchema, present } from './endpoint-schemas.js';
import { deliverySchema, idParam, listOf, listQuery } from './schemas.js';

/**
 * The actions on one webhook endpoint: rotate its secret, enable, disable, send a test event,
 * recover failed deliveries, list its deliveries. Registered right after `endpointRoutes`, with the
 * same prefix (the API document keeps their order).
 */
export const endpointActionRoutes: FastifyPluginAsync = async (app) => {
  const w = app.webhooks;
  const params = { params: idParam(ENDPOINT_ID) };
  const load = (q: Queryable, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
    loadEndpoint(w, q, request, reply);

  app.post<{ Params: { id: string }; Body: { overlapSeconds?: number } | undefined }>(
    '/:id/rotate-secret',
    {
      config: { idempotency: { required: false }, portal: 'write' },
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
      await visibleEndpoint(w, txOf(request), request, request.params.id);
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
      config: { idempotency: { required: false }, portal: 'write' },
      schema: {
        operationId: 'enableWebhookEndpoint',
        summary: 'Re-enable a disabled endpoint',
        description: 'Deliveries resume; recover the ones failed while it was disabled with /recover.',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request) => {
      await visibleEndpoint(w, txOf(request), request, request.params.id);
      return present(
        await w.enableEndpoint(txOf(request), { tenant: request.tenant, id: request.params.id }),
      );
    },
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } | undefined }>(
    '/:id/disable',
    {
      config: { idempotency: { required: false }, sends: ['etag'], portal: 'write' },
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
      await visibleEndpoint(w, txOf(request), request, request.params.id);
      const by = request.portal ? 'in the portal' : 'by an operator';
      // Changes nothing when the endpoint is disabled already, or was deleted since (then `load`
      // answers 404); `load` reads the endpoint as it now is and sets its ETag.
      await w.disableEndpoint(txOf(request), {
        tenant: request.tenant,
        id: request.params.id,
        reason: reason ? `${by}: ${reason}` : by,
      });
      return present(await load(txOf(request), request, reply));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/:id/test',
    {
      config: { idempotency: { required: false }, problems: ['endpoint_disabled'], portal: 'write' },
      schema: {
        operationId: 'testWebhookEndpoint',
        summary: 'Send a webhook.test event to this endpoint',
        description:
          'Publishes a webhook.test event to this endpoint only, whether or not it subscribes to ' +
          'webhook.test (it is named, so it is reached: deliveries is 1). A disabled endpoint is a 409.',
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
      const endpoint = await visibleEndpoint(w, txOf(request), request, request.params.id);
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
      config: { idempotency: { required: false }, portal: 'write' },
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
      await visibleEndpoint(w, txOf(request), request, request.params.id);
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
      config: { portal: 'read' },
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
      await visibleEndpoint(w, app.sql, request, request.params.id);
      const page = await w.listDeliveries(app.reads, {
        ...request.query,
        tenant: request.tenant,
        endpointId: request.params.id,
      });
      return { object: 'list', ...page, data: page.data.map((d) => ({ ...d, object: 'delivery' })) };
    },
  );
};
