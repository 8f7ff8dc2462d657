import {
  type DestinationChannel,
  type RegisteredEvent,
  serviceContract,
  toJson,
  withDestinations,
} from '@surety/events';
import type { Endpoint, Webhooks } from '@surety/webhooks';
import type { FastifyPluginAsync } from 'fastify';
import { eventTypeData } from '../data/event-types.js';

export interface TenantContractRoutesOptions {
  /** The PostgreSQL schema of the service's tables. */
  schema: string;
}

/**
 * The tenant's own event contract, `GET /v1/asyncapi.json`: the AsyncAPI 3.0 document of every
 * type its receivers can get, the service's and the tenant's, built by the same code as the
 * service's public `/asyncapi.json`. Registered with `{ prefix: '/v1' }`.
 */
export const tenantContractRoutes: FastifyPluginAsync<TenantContractRoutesOptions> = async (app, options) => {
  const data = eventTypeData(options.schema);
  app.get(
    '/asyncapi.json',
    {
      schema: {
        operationId: 'getTenantAsyncApi',
        summary: 'Your event contract (AsyncAPI 3.0), with your event types',
        description:
          "The AsyncAPI 3.0 document of every event your endpoints can receive: the service's types and " +
          'the ones you registered (deprecated ones marked), with their schemas, examples and the ' +
          'delivery semantics, and each broker endpoint (amqp, nats, mqtt) as a channel with its protocol ' +
          'bindings. Give it to the receivers of your webhooks.',
        tags: ['event-types'],
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request, reply) => {
      const own = await data.all(app.sql, { tenant: request.tenant });
      // Built from the definitions as stored (each checked when it was written): no validator is
      // compiled per request. A stored name the service has since taken for itself is the service's.
      const events: RegisteredEvent[] = [
        ...app.events.list(),
        ...own
          .filter((r) => !app.events.has(r.name))
          .map((r) => ({
            type: r.name,
            description: r.description,
            schema: r.schema,
            sample: r.examples[0],
            version: r.version,
            deprecated: r.deprecated,
          })),
      ];
      const doc = withDestinations(
        serviceContract(events, {
          title: 'Surety webhooks: your contract',
          description:
            "The events your endpoints can receive: the service's own types and the ones you registered " +
            '(`POST /v1/event-types`).',
        }),
        await brokerDestinations(app.webhooks, app.sql, request.tenant),
      );
      return reply.type('application/json; charset=utf-8').send(toJson(doc));
    },
  );
};

/** Most endpoints read for the document: past them, broker endpoints are left out (said in docs/destinations.md). */
const MAX_PAGES = 20;

/** The tenant's broker endpoints (no credentials: the API's redacted form is not used). */
async function brokerDestinations(
  w: Webhooks,
  q: Parameters<Webhooks['listEndpoints']>[0],
  tenant: string,
): Promise<DestinationChannel[]> {
  const out: DestinationChannel[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const p = await w.listEndpoints(q, { tenant, limit: 100, ...(cursor ? { cursor } : {}) });
    for (const e of p.data) if (e.kind !== 'webhook' && e.kind !== 'poll') out.push(channelOf(e));
    if (!p.hasMore || p.nextCursor === null) break;
    cursor = p.nextCursor;
  }
  return out;
}

const channelOf = (e: Endpoint): DestinationChannel => ({
  id: e.id,
  kind: e.kind as DestinationChannel['kind'],
  url: e.url,
  destination: (e.destination ?? {}) as DestinationChannel['destination'],
  eventTypes: e.eventTypes,
  ...(e.description ? { description: e.description } : {}),
});
