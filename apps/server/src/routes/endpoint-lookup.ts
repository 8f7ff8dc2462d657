import { versionETag } from '@surety/conditional';
import type { Queryable } from '@surety/db';
import { type Endpoint, EndpointNotFoundError, type Webhooks } from '@surety/webhooks';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A lookup answers undefined for a missing endpoint; a route answers 404 (problem.ts). */
export const foundEndpoint = (endpoint: Endpoint | undefined): Endpoint => {
  if (!endpoint) throw new EndpointNotFoundError();
  return endpoint;
};

/** The tenant's endpoint named by the path, with its ETag set on the reply; 404 when missing. */
export async function loadEndpoint(
  w: Webhooks,
  q: Queryable,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<Endpoint> {
  const endpoint = foundEndpoint(await w.getEndpoint(q, { tenant: request.tenant, id: request.params.id }));
  reply.header('etag', versionETag(endpoint.version));
  return endpoint;
}
