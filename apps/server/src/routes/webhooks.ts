import { versionETag } from '@surety/conditional';
import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import {
  ApplicationNotFoundError,
  type EndpointFilter,
  EndpointNotFoundError,
  type EndpointPatch,
} from '@surety/webhooks';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { conditionalDelete, conditionalUpdate } from '../conditional-update.js';
import { checkEndpointFilter } from '../filters/check.js';
import { routePreconditions } from '../route-config.js';
import { applicationRef } from './application-schemas.js';
import { loadEndpoint, visibleEndpoint } from './endpoint-lookup.js';
import { ENDPOINT_ID, editable, endpointSchema, present } from './endpoint-schemas.js';
import { idParam, listOf, listQuery } from './schemas.js';

/**
 * Webhook endpoints: create, list, retrieve (with health), update, delete (the actions on one
 * endpoint are in endpoint-actions.ts). Registered with a prefix:
 * `app.register(endpointRoutes, { prefix: '/v1/webhook-endpoints' })`.
 */
export const endpointRoutes: FastifyPluginAsync = async (app) => {
  const w = app.webhooks;
  const params = { params: idParam(ENDPOINT_ID) };
  const load = (q: Queryable, request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
    loadEndpoint(w, q, request, reply);
  /**
   * Under a portal session, the endpoint is created in the session's application: an
   * `applicationId` naming another is answered as one naming no application.
   */
  const portalApplication = async (
    q: Queryable,
    request: FastifyRequest<{ Body: Record<string, unknown> }>,
  ): Promise<{ applicationId?: string }> => {
    const portal = request.portal;
    if (!portal) return {};
    const named = request.body.applicationId;
    if (typeof named === 'string') {
      const application = await w.getApplication(q, { tenant: request.tenant, id: named });
      // Answered as an application that does not exist is (the engine's own error, mapped once).
      if (application?.id !== portal.applicationId) throw new ApplicationNotFoundError('applicationId');
    }
    return { applicationId: portal.applicationId };
  };

  app.post<{ Body: { url?: string; eventTypes: string[]; description?: string } & Record<string, unknown> }>(
    '',
    {
      config: {
        idempotency: { required: false },
        sends: ['location', 'etag'],
        problems: [
          'invalid_webhook_url',
          'invalid_webhook_headers',
          'invalid_webhook_filter',
          'invalid_webhook_auth',
          'endpoint_limit_reached',
          'unknown_application',
        ],
        portal: 'write',
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
          required: ['eventTypes'],
          properties: {
            ...editable,
            kind: {
              type: 'string',
              enum: ['webhook', 'amqp', 'nats', 'mqtt', 'poll'],
              description:
                'How events leave: `webhook` (HTTP POST, the default), published to a broker, confirmed ' +
                'by it, or `poll`: read by its consumer from GET …/poll (docs/destinations.md). Fixed for ' +
                'life. Every kind but poll requires `url`.',
            },
            applicationId: applicationRef(
              'The application it belongs to, for life, by id or uid: it then receives only the events ' +
                'published to that application. Omitted: one of your own, which receives the events ' +
                'published with no application.',
            ),
          },
        },
        response: { 201: endpointSchema },
      },
    },
    async (request, reply) => {
      await checkEndpointFilter(app, txOf(request), {
        tenant: request.tenant,
        filter: request.body.filter as EndpointFilter | null | undefined,
        eventTypes: request.body.eventTypes,
      });
      const { endpoint, secret } = await w.createEndpoint(txOf(request), {
        tenant: request.tenant,
        ...request.body,
        ...(await portalApplication(txOf(request), request)),
      });
      reply
        .code(201)
        .header('location', `/v1/webhook-endpoints/${endpoint.id}`)
        .header('etag', versionETag(endpoint.version));
      return present(endpoint, { secret });
    },
  );

  app.get<{ Querystring: { limit?: number; cursor?: string; applicationId?: string } }>(
    '',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints',
        description: "Pages through the tenant's endpoints, oldest first, without their secrets.",
        tags: ['webhooks'],
        querystring: listQuery({
          applicationId: applicationRef("Only this application's endpoints (id or uid)."),
        }),
        response: { 200: listOf(endpointSchema) },
      },
    },
    async (request) => {
      const page = await w.listEndpoints(app.reads, {
        ...request.query,
        tenant: request.tenant,
        // A portal session lists its application's endpoints, whatever the query asks.
        ...(request.portal ? { applicationId: request.portal.applicationId } : {}),
      });
      return { object: 'list', ...page, data: page.data.map((e) => present(e)) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      config: { precondition: 'read', sends: ['etag'], portal: 'read' },
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
      const health = await w.getEndpointHealth(app.sql, { tenant: request.tenant, id: endpoint.id });
      if (!health) throw new EndpointNotFoundError(); // deleted since `load`
      return present(endpoint, { health });
    },
  );

  app.patch<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/:id',
    {
      config: {
        idempotency: { required: false },
        precondition: 'required',
        sends: ['etag'],
        problems: [
          'invalid_webhook_url',
          'invalid_webhook_headers',
          'invalid_webhook_filter',
          'invalid_webhook_auth',
        ],
        portal: 'write',
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
      const out = await conditionalUpdate(request, reply, {
        current: { version: endpoint.version },
        update: async (ifVersion) => {
          const { filter, eventTypes } = request.body as Pick<EndpointPatch, 'filter' | 'eventTypes'>;
          if (filter !== undefined || eventTypes !== undefined) {
            // The filter as it will be, against the types as they will be.
            await checkEndpointFilter(app, txOf(request), {
              tenant: request.tenant,
              filter: filter === undefined ? endpoint.filter : filter,
              eventTypes: eventTypes ?? endpoint.eventTypes,
            });
          }
          return w.updateEndpoint(txOf(request), {
            tenant: request.tenant,
            id: endpoint.id,
            ifVersion,
            patch: request.body,
          });
        },
        versionOf: (updated) => ({ version: updated.version }),
      });
      if (out.kind === 'stopped') return out.payload;
      return present(out.row);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/:id',
    {
      // DELETE is idempotent by its nature: deleting again is a 404 and changes nothing.
      config: { idempotency: false, precondition: 'optional', portal: 'write' },
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
      const endpoint = await visibleEndpoint(w, app.sql, request, request.params.id);
      // The version the precondition passed on is the one deleted: a change committed between the
      // check and the delete makes it 412, not a deletion of what the client never saw.
      const out = await conditionalDelete(request, reply, {
        current: { version: endpoint.version },
        remove: (ifVersion) =>
          app.sql.transaction((tx) =>
            w.deleteEndpoint(tx, { tenant: request.tenant, id: endpoint.id, ifVersion }),
          ),
      });
      if (out.kind === 'stopped') return reply.send(out.payload);
      return reply.code(204).send();
    },
  );
};
