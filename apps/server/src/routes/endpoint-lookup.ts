import { versionETag } from '@surety/conditional';
import type { Queryable } from '@surety/db';
import { type Endpoint, EndpointNotFoundError, type Webhooks } from '@surety/webhooks';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A lookup answers undefined for a missing endpoint; a route answers 404 (problem.ts). Under a
 * portal session (`request.portal`) an endpoint of another application, or of the tenant itself, is
 * missing too: the customer cannot tell it from one that does not exist.
 */
export const foundEndpoint = (endpoint: Endpoint | undefined, request?: FastifyRequest): Endpoint => {
  if (!endpoint) throw new EndpointNotFoundError();
  const portal = request?.portal;
  if (portal && endpoint.applicationId !== portal.applicationId) throw new EndpointNotFoundError();
  return endpoint;
};

/** The endpoint of this id that the caller may see (see `foundEndpoint`); 404 otherwise. */
export async function visibleEndpoint(
  w: Webhooks,
  q: Queryable,
  request: FastifyRequest,
  id: string,
): Promise<Endpoint> {
  return foundEndpoint(await w.getEndpoint(q, { tenant: request.tenant, id }), request);
}

/** The tenant's endpoint named by the path, with its ETag set on the reply; 404 when missing. */
export async function loadEndpoint(
  w: Webhooks,
  q: Queryable,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<Endpoint> {
  const endpoint = await visibleEndpoint(w, q, request, request.params.id);
  reply.header('etag', versionETag(endpoint.version));
  return endpoint;
}
