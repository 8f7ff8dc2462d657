/**
 * The API document (/openapi.json) and its UI (/docs). Every documented route lists every answer it
 * can give: the problem+json statuses are added from what its `config` declares (idempotency,
 * preconditions) and what it takes (a body), so the document cannot forget one.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, onRequestHookHandler, onRouteHookHandler } from 'fastify';
import { DOCS_CSP } from './dashboard/index.js';
import './route-config.js';

const PROBLEM_SCHEMA = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable machine-readable code' },
    instance: { type: 'string' },
  },
} as const;

/**
 * Adds the problem statuses to the response schemas of every documented API route: one with a
 * schema, not hidden and not public (public routes are the service's own documents and probes).
 */
export const documentProblems: onRouteHookHandler = (route) => {
  if (!route.schema || route.schema.hide || route.config?.public) return;
  const methods = ([] as string[]).concat(route.method);
  const { idempotency, precondition } = route.config ?? {};
  const statuses: Record<number, string> = {
    400:
      'Invalid input (code: validation_failed, invalid_json, invalid_character, invalid_url, ' +
      'invalid_cursor, date_out_of_range, idempotency_key_missing, …)',
    401: 'Missing or invalid API key',
    404: 'No such resource for this tenant',
    503: 'Database or idempotency store unavailable; nothing was changed',
  };
  if (idempotency) {
    statuses[409] = 'A request with this Idempotency-Key is in flight (Retry-After), or a conflict';
    statuses[422] = 'The Idempotency-Key was used with a different request';
  }
  if (precondition === 'read') statuses[304] = 'Not modified (If-None-Match matched the current ETag)';
  if (precondition === 'required' || precondition === 'to-replace') {
    statuses[412] = 'If-Match / If-None-Match precondition failed';
    statuses[428] = 'This write requires If-Match';
  }
  if (methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH')) {
    statuses[413] = 'Body larger than the limit';
    statuses[415] = 'Body is not JSON';
  }
  const response = { ...((route.schema.response as Record<string, unknown>) ?? {}) };
  for (const [status, description] of Object.entries(statuses)) {
    response[status] ??=
      status === '304' ? { description, type: 'null' } : { ...PROBLEM_SCHEMA, description };
  }
  route.schema = { ...route.schema, response };
};

/** Frame protection and nosniff for Swagger UI (its CSP is the plugin's `staticCSP`). */
const docsHeaders: onRequestHookHandler = async (_request, reply) => {
  reply
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
};

/**
 * Registers the OpenAPI generator (which collects every route added after it), `/openapi.json`
 * and Swagger UI under `/docs`. Call it before the routes, after `documentProblems` is hooked.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Surety API',
        version: '0.1.0',
        description:
          'Payments, orders and inventory that are safe to retry. Unsafe requests take an Idempotency-Key; ' +
          'errors are application/problem+json with a stable code.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  // In a context of its own, so this hook sees the UI's routes only, the static files too (the
  // plugin's own hooks skip those): they answer without an API key, with the headers above.
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
      route.onRequest = [...([] as onRequestHookHandler[]).concat(route.onRequest ?? []), docsHeaders];
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // validatorUrl null: the UI would otherwise fetch a badge from validator.swagger.io.
      uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
      // Swagger UI shares the dashboard's origin (and so its sessionStorage API key): the same strict
      // policy, with data: images (its stylesheet draws icons as data: SVGs). It needs no inline
      // script, no eval and nothing from another origin (checked in test/operations.test.ts).
      staticCSP: DOCS_CSP,
      uiHooks: {},
    });
  });
}
