import { staleWriteProblem, versionETag } from '@surety/conditional';
import { checkPreconditions } from '@surety/conditional/fastify';
import type { Queryable } from '@surety/db';
import { txOf } from '@surety/idempotency/fastify';
import { type Endpoint, endpointHealth, listAttempts, listDeliveries, listEndpoints } from '@surety/webhooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromConditional, HttpProblem, notFound } from '../problem.js';
import { attemptSchema, deliverySchema, EVENT_TYPE_PATTERN, idParam, listOf, listQuery } from './schemas.js';

// Any id-shaped value: one that names nothing is a 404, like one of another tenant.
const ENDPOINT_ID = '^[0-9A-Za-z_]{1,64}$';

const eventTypes = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  uniqueItems: true,
  items: {
    anyOf: [
      { type: 'string', const: '*' },
      { type: 'string', pattern: EVENT_TYPE_PATTERN },
    ],
  },
} as const;

const editable = {
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  description: { type: 'string', maxLength: 500 },
  eventTypes,
  format: { type: 'string', enum: ['surety', 'standard'] },
  retrySchedule: {
    type: ['array', 'null'],
    minItems: 1,
    maxItems: 50,
    items: { type: 'integer', minimum: 1, maximum: 604_800 },
    description: 'Seconds after the first attempt; null uses the service default.',
  },
  rateLimit: {
    type: ['integer', 'null'],
    minimum: 1,
    maximum: 10_000,
    description: 'Deliveries per second.',
  },
  ordered: { type: 'boolean', description: 'One delivery in flight at a time, in sequence order.' },
} as const;

const endpointSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'webhook_endpoint' },
    url: { type: 'string' },
    description: { type: 'string' },
    eventTypes: { type: 'array', items: { type: 'string' } },
    format: { type: 'string' },
    status: { type: 'string', enum: ['enabled', 'disabled'] },
    disabledReason: { type: ['string', 'null'] },
    disabledAt: { type: ['string', 'null'] },
    retrySchedule: { type: ['array', 'null'], items: { type: 'integer' } },
    rateLimit: { type: ['integer', 'null'] },
    ordered: { type: 'boolean' },
    version: { type: 'integer' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    lastSuccessAt: { type: ['string', 'null'] },
    lastFailureAt: { type: ['string', 'null'] },
    failingSince: { type: ['string', 'null'] },
    circuit: {
      type: 'object',
      description:
        'The circuit breaker: after consecutive failed attempts it opens and every pending delivery waits ' +
        'behind one probe attempt at nextProbeAt (half_open once it is due); a successful probe closes it.',
      properties: {
        state: { type: 'string', enum: ['closed', 'open', 'half_open'] },
        consecutiveFailures: { type: 'integer' },
        openedAt: { type: ['string', 'null'] },
        nextProbeAt: { type: ['string', 'null'] },
      },
    },
    health: {
      type: 'object',
      properties: {
        attempts24h: { type: 'integer' },
        successRate24h: { type: ['number', 'null'] },
        pendingDeliveries: { type: 'integer' },
      },
    },
    secret: { type: 'string', description: 'Only in the answer to creation and rotation: store it now.' },
  },
} as const;

const present = (e: Endpoint, extra: Record<string, unknown> = {}) => ({
  ...e,
  object: 'webhook_endpoint',
  ...extra,
});

export function webhookRoutes(app: FastifyInstance): void {
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
    '/v1/webhook-endpoints',
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
    '/v1/webhook-endpoints',
    {
      schema: {
        summary: 'List webhook endpoints',
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
    '/v1/webhook-endpoints/:id',
    {
      schema: {
        summary: 'Retrieve a webhook endpoint with its health',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request, reply) => {
      const endpoint = await load(app.sql, request, reply);
      const check = checkPreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
      if (!check.proceed) return reply.send(check.payload);
      return present(endpoint, { health: await endpointHealth(w, app.sql, request.tenant, endpoint.id) });
    },
  );

  app.patch<{ Params: { id: string }; Body: Record<string, unknown> }>(
    '/v1/webhook-endpoints/:id',
    {
      config: { idempotency: { required: false } },
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
      const check = checkPreconditions(
        request,
        reply,
        { exists: true, etag: versionETag(endpoint.version) },
        { require: true },
      );
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
    '/v1/webhook-endpoints/:id',
    { schema: { summary: 'Delete a webhook endpoint (If-Match honoured)', tags: ['webhooks'], ...params } },
    async (request, reply) => {
      const endpoint = await w.getEndpoint(app.sql, request.tenant, request.params.id);
      const check = checkPreconditions(request, reply, { exists: true, etag: versionETag(endpoint.version) });
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
    '/v1/webhook-endpoints/:id/rotate-secret',
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
    '/v1/webhook-endpoints/:id/enable',
    {
      config: { idempotency: { required: false } },
      schema: {
        summary: 'Re-enable a disabled endpoint',
        tags: ['webhooks'],
        ...params,
        response: { 200: endpointSchema },
      },
    },
    async (request) => present(await w.enableEndpoint(txOf(request), request.tenant, request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: { reason?: string } | undefined }>(
    '/v1/webhook-endpoints/:id/disable',
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
    '/v1/webhook-endpoints/:id/test',
    {
      config: { idempotency: { required: false } },
      schema: { summary: 'Send a webhook.test event to this endpoint', tags: ['webhooks'], ...params },
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
    '/v1/webhook-endpoints/:id/recover',
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
      await w.getEndpoint(txOf(request), request.tenant, request.params.id);
      const requeued = await w.recoverEndpoint(txOf(request), request.tenant, request.params.id, since);
      reply.code(202);
      return { object: 'recovery', endpointId: request.params.id, requeued };
    },
  );

  app.get<{ Params: { id: string }; Querystring: { limit?: number; cursor?: string; status?: string } }>(
    '/v1/webhook-endpoints/:id/deliveries',
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
      await w.getEndpoint(app.sql, request.tenant, request.params.id);
      const page = await listDeliveries(w, app.sql, request.tenant, {
        ...request.query,
        endpointId: request.params.id,
      });
      return { object: 'list', ...page, data: page.data.map((d) => ({ ...d, object: 'delivery' })) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/deliveries/:id/attempts',
    {
      schema: {
        summary: 'List the attempts of a delivery',
        tags: ['webhooks'],
        params: idParam('^[0-9A-Za-z_]{1,64}$'),
        response: { 200: listOf(attemptSchema) },
      },
    },
    async (request) => {
      const attempts = await listAttempts(w, app.sql, request.tenant, request.params.id);
      if (!attempts) throw notFound('delivery');
      return {
        object: 'list',
        data: attempts.map((a) => ({ ...a, object: 'attempt' })),
        hasMore: false,
        nextCursor: null,
      };
    },
  );
}
