import { txOf } from '@surety/idempotency/fastify';
import { EndpointNotFoundError } from '@surety/webhooks';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../problem.js';
import { deliverySchema, EVENT_TYPE_PATTERN, eventSchema, idParam, listOf, listQuery } from './schemas.js';

const EVENT_ID = '^[\\x21-\\x7e]{1,255}$';

/**
 * Events: publish (Idempotency-Key required), list, retrieve, deliveries, replay. Registered with a
 * prefix: `app.register(eventRoutes, { prefix: '/v1/events' })`.
 */
export const eventRoutes: FastifyPluginAsync = async (app) => {
  const w = app.webhooks;

  app.post<{ Body: { type: string; data: unknown; resource?: string } }>(
    '',
    {
      config: { idempotency: true, sends: ['location'], problems: ['invalid_event', 'reserved_event_type'] },
      schema: {
        operationId: 'publishEvent',
        description:
          "Validates the payload against its type (the service's or one of yours, GET /v1/event-types), " +
          'stores the event and queues a delivery to every subscribed endpoint, once per key. The ' +
          "service's operational types (endpoint.disabled, webhook.test) are reserved: 403.",
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
          },
        },
        response: { 201: eventSchema },
      },
    },
    async (request, reply) => {
      const { type, data, resource } = request.body;
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
      };
    },
  );

  app.get<{
    Querystring: { limit?: number; cursor?: string; type?: string; since?: string; resource?: string };
  }>(
    '',
    {
      schema: {
        operationId: 'listEvents',
        summary: 'List events, newest first',
        description: 'Pages through the events, by type, time or resource.',
        tags: ['events'],
        querystring: listQuery({
          type: { type: 'string', pattern: EVENT_TYPE_PATTERN },
          since: { type: 'string', format: 'date-time' },
          resource: { type: 'string', maxLength: 255 },
        }),
        response: { 200: listOf(eventSchema) },
      },
    },
    async (request) => {
      // `since` passed the schema's date-time check, which also refuses what PostgreSQL cannot be
      // sent (400 date_out_of_range; see the validator compiler in app.ts).
      const { since, ...rest } = request.query;
      const page = await w.listEvents(app.sql, {
        ...rest,
        tenant: request.tenant,
        ...(since === undefined ? {} : { since: new Date(since) }),
      });
      return { object: 'list', ...page, data: page.data.map((e) => ({ ...e, object: 'event' })) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/:id',
    {
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
      const event = await w.getEvent(app.sql, { tenant: request.tenant, id: request.params.id });
      if (!event) throw notFound('event');
      return { ...event, object: 'event' };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: number; cursor?: string } }>(
    '/:id/deliveries',
    {
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
      const event = { tenant: request.tenant, id: request.params.id };
      if (!(await w.getEvent(app.sql, event))) throw notFound('event');
      const page = await w.listDeliveries(app.sql, {
        ...request.query,
        tenant: request.tenant,
        eventId: request.params.id,
      });
      return { object: 'list', ...page, data: page.data.map((d) => ({ ...d, object: 'delivery' })) };
    },
  );

  app.post<{ Params: { id: string }; Body: { endpointId?: string } | undefined }>(
    '/:id/replay',
    {
      config: { idempotency: { required: false } },
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
      if (!(await w.getEvent(tx, { tenant, id: request.params.id }))) throw notFound('event');
      const endpointId = request.body?.endpointId;
      if (endpointId && !(await w.getEndpoint(tx, { tenant, id: endpointId }))) {
        throw new EndpointNotFoundError();
      }
      const queued = await w.replayEvent(tx, { tenant, eventId: request.params.id, endpointId });
      reply.code(202);
      return { object: 'replay', eventId: request.params.id, queued };
    },
  );
};
