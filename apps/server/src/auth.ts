import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashKey } from './config.js';
import { HttpProblem, sendProblem } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the API key that authenticated the request. */
    tenant: string;
  }
  interface FastifyContextConfig {
    /** Routes that answer without an API key (health checks, documents). */
    public?: boolean;
  }
}

const unauthorized = (detail: string) =>
  new HttpProblem(
    401,
    'unauthorized',
    'Unauthorized',
    detail,
    {},
    { 'www-authenticate': 'Bearer realm="surety"' },
  );

/** The tenant for a bearer key, or undefined. Keys are compared by their SHA-256, never stored raw. */
export function tenantForKey(apiKeys: Map<string, string>, request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return undefined;
  return apiKeys.get(hashKey(match[1]!));
}

/** Every route needs `Authorization: Bearer <key>` unless its config says `public: true`. */
export function registerAuth(app: FastifyInstance, apiKeys: Map<string, string>): void {
  app.decorateRequest('tenant', '');
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public) return;
    if (request.routeOptions.url === undefined) return; // 404s answer as 404, not 401
    const tenant = tenantForKey(apiKeys, request);
    if (tenant === undefined) {
      const detail = request.headers.authorization
        ? 'The API key is not valid.'
        : 'Send your API key as "Authorization: Bearer <key>".';
      return sendProblem(reply, unauthorized(detail), request.url);
    }
    request.tenant = tenant;
  });
}
