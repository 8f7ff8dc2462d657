/**
 * The API document (/openapi.json) and its UI (/docs), generated from one source: each route's
 * schema and `config`. Its header parameters (Idempotency-Key, If-Match, If-None-Match), the headers
 * of its answers and every problem it can answer, with the codes, come from what the route declares
 * (openapi-operation.ts), and a route that leaves something out is refused when it is registered.
 */
import swagger, { type SwaggerOptions } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { DOCS_CSP } from './dashboard/index.js';
import { applyRouteDocs, describeRoute, operationKey, type RouteDoc } from './openapi-operation.js';
import './route-config.js';

/** The one problem+json schema (RFC 9457) every error answer refers to; each answer narrows `code`. */
const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details, sent as application/problem+json.',
  required: ['type', 'title', 'status', 'code'],
  properties: {
    type: { type: 'string', description: 'about:blank, or a URI naming the problem type' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'What happened and what to do, for a person' },
    code: {
      type: 'string',
      description: 'Stable machine-readable code (the answer lists its possible values)',
    },
    instance: { type: 'string', description: 'The request path' },
    errors: {
      type: 'array',
      description: 'Where the input is wrong (validation_failed, invalid_character, invalid_event)',
      items: {
        type: 'object',
        properties: {
          in: { type: 'string' },
          path: { type: 'string' },
          message: { type: 'string' },
        },
      },
    },
  },
} as const;

const HEADERS = {
  ETag: {
    description:
      'The version of the resource: send it as If-Match to change it, If-None-Match to re-read it.',
    schema: { type: 'string' },
  },
  'Last-Modified': { description: 'When the resource last changed (HTTP date).', schema: { type: 'string' } },
  Location: { description: 'The path of the created resource.', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    description:
      'Seconds to wait before retrying: on every 503, and on a 409 with code idempotency_key_in_use.',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme: `Bearer realm="surety"`.',
    schema: { type: 'string' },
  },
} as const;

/** The tags of the document; a route's `schema.tags` must name one of them. */
export const TAGS = [
  { name: 'payments', description: 'Payments: created once per Idempotency-Key.' },
  { name: 'orders', description: 'Orders: every write conditional on the version (ETag, If-Match).' },
  { name: 'inventory', description: 'Stock per SKU and reservations from it.' },
  { name: 'webhooks', description: 'Webhook endpoints, their deliveries and attempts.' },
  { name: 'events', description: 'Events: published, listed, replayed.' },
  {
    name: 'portal',
    description: "The consumer portal: sessions scoped to one application, and the tenant's portal settings.",
  },
] as const;

export interface OpenApiOptions {
  /** How long a completed Idempotency-Key is remembered, stated in its description. */
  idempotencyTtlMs: number;
}

/** Frame protection and nosniff for Swagger UI (its CSP is the plugin's `staticCSP`). */
const docsHeaders: onRequestHookHandler = async (_request, reply) => {
  reply
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
};

/**
 * Registers the OpenAPI generator (which collects every route added after it), `/openapi.json`
 * and Swagger UI under `/docs`. Call it before the routes: its onRoute hook describes each route
 * (and refuses one that leaves something out) as it is added.
 */
export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  const docs = new Map<string, RouteDoc>();
  const tags = TAGS.map((t) => t.name);
  app.addHook('onRoute', (route) => {
    const doc = describeRoute(route, { idempotencyTtlMs: options.idempotencyTtlMs, tags });
    if (!doc) return;
    for (const method of ([] as string[]).concat(route.method))
      docs.set(operationKey(method, route.url), doc);
  });
  const swaggerOptions: SwaggerOptions = {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Surety API',
        version: '0.1.0',
        description:
          'Payments, orders and inventory that are safe to retry. Unsafe requests take an Idempotency-Key; ' +
          'versioned resources answer with an ETag and take If-Match; errors are application/problem+json ' +
          'with a stable code. See docs/contracts.md.',
        contact: { name: 'Surety', url: 'https://github.com/surety-dev/surety' },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'The service that served this document' }],
      tags: [...TAGS],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
        },
        // Plain JSON (`as const`); the document's types want mutable arrays.
        schemas: { Problem: PROBLEM_SCHEMA as unknown as never },
        headers: HEADERS as unknown as never,
      },
      security: [{ bearer: [] }],
    },
    transformObject: (generated) => {
      if (!('openapiObject' in generated)) return generated.swaggerObject;
      return applyRouteDocs(
        generated.openapiObject as Record<string, unknown>,
        docs,
      ) as typeof generated.openapiObject;
    },
  };
  await app.register(swagger, swaggerOptions);
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
