// The service's write-time check of an endpoint filter: the language and its bounds (the engine's
// parseFilter), then the paths and values against the subscribed types' schemas (schema-paths.ts),
// the service's own types from its registry, the tenant's own from its event types.
import type { Queryable } from '@surety/db';
import type { JsonSchema } from '@surety/events';
import { type EndpointFilter, parseFilter } from '@surety/webhooks';
import type { FastifyInstance } from 'fastify';
import { checkFilterSchemas } from './schema-paths.js';

/** Throws InvalidFilterError (422 `invalid_webhook_filter`) for a filter that can never be right. */
export async function checkEndpointFilter(
  app: FastifyInstance,
  q: Queryable,
  p: { tenant: string; filter: EndpointFilter | null | undefined; eventTypes: readonly string[] },
): Promise<void> {
  if (p.filter === null || p.filter === undefined) return;
  const node = parseFilter(p.filter);
  if (p.eventTypes.includes('*')) return;
  const schemas = new Map<string, JsonSchema | undefined>();
  for (const name of p.eventTypes) {
    const own = app.events.get(name)?.schema as JsonSchema | undefined;
    schemas.set(name, own ?? (await app.eventTypes.schemaOf(q, { tenant: p.tenant, name })));
  }
  checkFilterSchemas(node, p.eventTypes, (type) => schemas.get(type));
}
