import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import type { EventRecord } from '@surety/webhooks';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { notFound } from '../problem.js';
import { applicationRef } from './application-schemas.js';
import { visibleEndpoint } from './endpoint-lookup.js';
import { deliverySchema, EVENT_TYPE_PATTERN, eventSchema, idParam, listOf, listQuery } from './schemas.js';

const EVENT_ID = '^[\\x21-\\x7e]{1,255}$';

/**
 * Events: publish (Idempotency-Key required), list, retrieve, deliveries, replay. Registered with a
 * prefix: `app.register(eventRoutes, { prefix: '/v1/events' })`.
 */
export const eventRoutes: FastifyPluginAsync = async (app) => {
  const w = app.webhooks;
  /**
   * The event the caller may see: the tenant's, and under a portal session one published to its
   * application (another application's, or the tenant's own, is a 404 as a missing one is).
   */
  const visibleEvent = async (q: Queryable, request: FastifyRequest, id: string): Promise<EventRecord> => {
    const event = await w.getEvent(q, { tenant: request.tenant, id });
    if (!event || (request.portal && event.applicationId !== request.portal.applicationId)) {
      throw notFound('event');
    }
    return event;
  };
  /** Under a portal session, lists read only what belongs to its application. */
  const scope = (request: FastifyRequest) =>
    request.portal ? { applicationId: request.portal.applicationId } : {};

  app.post<{ Body: { type: string; data: unknown; resource?: string; application?: string } }>(
    '',
    {
      config: {
        idempotency: true,
        sends: ['location'],
        problems: [
          'invalid_event',
          'unknown_application',
          'reserved_event_type',
          'schema_too_costly',
          'validation_busy',
        ],
      },
      schema: {
        operationId: 'publishEvent',
        description:
          "Validates the payload against its type (the service's or one of yours, GET /v1/event-types), " +
          'stores the event and queues a delivery to every subscribed endpoint of the application named ' +
          "(or, without one, of your own), once per key. The service's operational types " +
          '(endpoint.disabled, webhook.test) are reserved: 403.',
        summary: 'Publish an event (Idempotency-Key required; the payload is validated against its type)',
        tags: ['events'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'data'],
          properties: {
            type: { type: 'string', pattern: EVENT_TYPE_PATTERN, maxLength: 100 },
            data: { type: 'object' },
            resource: { type: 'string', minLength: 1, maxLength: 255 },
            application: applicationRef(
              'The application (id or uid) whose subscribed endpoints receive it, and only they. Omitted: your own endpoints of no application.',
            ),
          },
        },
        response: { 201: eventSchema },
      },
      // A tenant type's payload is validated before the key's transaction opens (in the schema
      // workers), so no database connection is held while it runs; the handler uses the outcome.
      preHandler: async (request) => {
        const { type, data } = request.body;
        await app.eventTypes.precheck(app.sql, { tenant: request.tenant, type, data: data as object });
      },
    },
    async (request, reply) => {
      const { type, data, resource, application } = request.body;
      // Reserved types are 403; a tenant's own type is validated against its schema (422).
      await app.eventTypes.checkPublishable(txOf(request), {
        tenant: request.tenant,
        type,
        data: data as object,
        serviceTypes: app.events,
      });
      const published = await w.publish(txOf(request), {
        tenant: request.tenant,
        type,
        data,
        ...(resource ? { resource } : {}),
        ...(application === undefined ? {} : { application }),
      });
      reply.code(201).header('location', `/v1/events/${published.id}`);
      return {
        id: published.id,
        object: 'event',
        type,
        apiVersion: w.apiVersion,
        createdAt: published.createdAt,
        sequence: published.sequence,
        resource: resource ?? null,
        data,
        applicationId: published.applicationId,
      };
    },
  );

  app.get<{
    Querystring: {
      limit?: number;
      cursor?: string;
      type?: string;
      since?: string;
      resource?: string;
      applicationId?: string;
    };
  }>(
    '',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'listEvents',
        summary: 'List events, newest first',
        description: 'Pages through the events, by type, time or resource.',
        tags: ['events'],
        querystring: listQuery({
          type: { type: 'string', pattern: EVENT_TYPE_PATTERN },
          since: { type: 'string', format: 'date-time' },
          resource: { type: 'string', maxLength: 255 },
          applicationId: applicationRef('Only the events published to this application (id or uid).'),
        }),
        response: { 200: listOf(eventSchema) },
      },
    },
    async (request) => {
      // `since` passed the schema's date-time check, which also refuses what PostgreSQL cannot be
      // sent (400 date_out_of_range; see the validator compiler in app.ts).
      const { since, ...rest } = request.query;
      const page = await w.listEvents(app.reads, {
        ...rest,
        ...scope(request),
        tenant: request.tenant,
        ...(since === undefined ? {} : { since: new Date(since) }),
      });
      return { object: 'list', ...page, data: page.data.map((e) => ({ ...e, object: 'event' })) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'getEvent',
        summary: 'Retrieve an event',
        description: "Answers one of this tenant's events with its payload.",
        tags: ['events'],
        params: idParam(EVENT_ID),
        response: { 200: eventSchema },
      },
    },
    async (request) => {
      const event = await visibleEvent(app.sql, request, request.params.id);
      return { ...event, object: 'event' };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: number; cursor?: string } }>(
    '/:id/deliveries',
    {
      config: { portal: 'read' },
      schema: {
        operationId: 'listEventDeliveries',
        summary: "List an event's deliveries",
        description: 'Every delivery of the event, one per subscribed endpoint (and replay).',
        tags: ['events'],
        params: idParam(EVENT_ID),
        querystring: listQuery(),
        response: { 200: listOf(deliverySchema) },
      },
    },
    async (request) => {
      await visibleEvent(app.sql, request, request.params.id);
      const page = await w.listDeliveries(app.reads, {
        ...request.query,
        ...scope(request),
        tenant: request.tenant,
        eventId: request.params.id,
      });
      return { object: 'list', ...page, data: page.data.map((d) => ({ ...d, object: 'delivery' })) };
    },
  );

  app.post<{ Params: { id: string }; Body: { endpointId?: string } | undefined }>(
    '/:id/replay',
    {
      config: { idempotency: { required: false }, portal: 'write' },
      schema: {
        operationId: 'replayEvent',
        summary: 'Deliver an event again, to every subscribed endpoint or to one',
        description: 'Queues a new delivery of the event to its subscribed endpoints, or to the one named.',
        tags: ['events'],
        params: idParam(EVENT_ID),
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { endpointId: { type: 'string', pattern: '^we_[0-9A-Za-z]{22}$' } },
        },
        response: {
          202: {
            type: 'object',
            properties: {
              object: { type: 'string', const: 'replay' },
              eventId: { type: 'string' },
              queued: { type: 'integer' },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const tx = txOf(request);
      const { tenant } = request;
      await visibleEvent(tx, request, request.params.id);
      const endpointId = request.body?.endpointId;
      if (endpointId) await visibleEndpoint(w, tx, request, endpointId);
      // Without endpointId the engine replays to the event's own audience (its application's
      // endpoints), so a session's replay reaches its own endpoints only.
      const queued = await w.replayEvent(tx, { tenant, eventId: request.params.id, endpointId });
      reply.code(202);
      return { object: 'replay', eventId: request.params.id, queued };
    },
  );
};
