import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { isStorableTimestamp, type Sql } from '@surety/db';
import {
  createRegistry,
  type EventRegistry,
  isEventError,
  serviceContract,
  toJson,
  toYaml,
} from '@surety/events';
import { deadline } from '@surety/fetch/fastify';
import { Idempotency } from '@surety/idempotency';
import { idempotency } from '@surety/idempotency/fastify';
import { InvalidEventError, Webhooks } from '@surety/webhooks';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import Fastify, {
  type FastifyInstance,
  type FastifySchemaCompiler,
  type FastifyServerOptions,
  type onRequestHookHandler,
} from 'fastify';
import { registerAuth } from './auth.js';
import { clientErrorHandler } from './client-error.js';
import type { Config } from './config.js';
import { DOCS_CSP, registerDashboard } from './dashboard/index.js';
import { registerInputCheck, registerJsonParsers } from './input.js';
import { Metrics, registerMetrics } from './metrics.js';
import { errorHandler, HttpProblem, sendProblem, toProblem } from './problem.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { inventoryRoutes } from './routes/inventory.js';
import { orderRoutes } from './routes/orders.js';
import { paymentRoutes } from './routes/payments.js';
import { webhookRoutes } from './routes/webhooks.js';

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    idempotency: Idempotency;
    webhooks: Webhooks;
    metrics: Metrics;
    events: EventRegistry;
  }
}

export interface AppOptions {
  sql: Sql;
  config: Pick<Config, 'apiKeys' | 'bodyLimit' | 'idempotencyTtlMs' | 'schema'> &
    Partial<Pick<Config, 'webhookAllowList' | 'webhookAllowHttp' | 'webhookMaxEndpointsPerTenant'>>;
  /** The webhook engine; built from `config` when absent. */
  webhooks?: Webhooks;
  /** Prometheus metrics; a fresh registry when absent. */
  metrics?: Metrics;
  /** The event registry (types and payload schemas); the service's events when absent. */
  events?: EventRegistry;
  /** Fastify's logger option. @default false */
  logger?: FastifyServerOptions['logger'];
  /** Injected clock for the idempotency engine (tests). */
  now?: () => number;
  /**
   * The longest a client may take to send a whole request (headers and body), in milliseconds; a
   * client that trickles its bytes is answered 408 and cut off. @default 30000
   */
  requestTimeoutMs?: number;
  /** Benchmark baseline only: serve POST /v1/payments without the idempotency layer. @default true */
  idempotentPayments?: boolean;
}

/**
 * `publish` refuses a payload its type's schema rejects, and a type the registry does not know, so
 * a bad event can never reach a customer.
 */
export function eventValidator(events: EventRegistry) {
  return (type: string, data: unknown): void => {
    try {
      events.assertValid(type, data);
    } catch (error) {
      if (!isEventError(error)) throw error;
      const errors =
        error.errors.length > 0 ? error.errors : [{ path: '/type', message: `unknown event type ${type}` }];
      throw new InvalidEventError(error.message, errors);
    }
  };
}

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

/** Redacts credentials from request logs: API keys must never reach a log line. */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

/** Builds the service without listening: routes, auth, idempotency, problem+json errors. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { sql, config } = options;
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: config.bodyLimit,
    // Requests are answered well within this; a client that trickles its body is cut off.
    requestTimeout,
    connectionTimeout: 60_000,
    // Two Node details make requestTimeout hold (both measured in test/faults/limits.test.ts):
    // - Node enforces it on a request whose headers are complete only while headersTimeout is not
    //   longer than it. Fastify sets requestTimeout after creating the server, which leaves
    //   headersTimeout at Node's 60 s: a client that sent its headers and then trickled its body,
    //   a byte a second, was never cut off. headersTimeout is set to the request timeout here.
    // - Node checks the timeouts every connectionsCheckingInterval (30 s by default), so a cut-off
    //   came up to 30 s late; checked every second it comes within a second.
    http: {
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.min(1000, requestTimeout),
    },
    return503OnClosing: true,
    // Errors the router raises before any route runs (a malformed percent-encoding, a path
    // parameter over 100 characters) otherwise leave as Fastify's own JSON, not problem+json.
    frameworkErrors: (error, request, reply) => sendProblem(reply, toProblem(error), request.url),
    // Heads Node's parser refuses (oversized: 431; too slow: 408; malformed: 400), as problem+json.
    clientErrorHandler,
  });
  // Before any route exists, so every route gets it: strings PostgreSQL cannot store are refused
  // (400 invalid_character) in the body, query, path parameters and headers of every request.
  registerInputCheck(app);
  // Bodies are rejected, never silently repaired: unknown fields are an error and types are not
  // coerced (Fastify's default ajv removes unknown fields and coerces "1" to 1). Query strings and
  // params are strings on the wire, so they alone are coerced (limit=20).
  app.setValidatorCompiler(makeValidatorCompiler());
  // JSON only: any other media type is a 415, not a string that fails validation later.
  app.removeContentTypeParser('text/plain');
  // …and only UTF-8 JSON: a body that is not UTF-8 is refused, not decoded with U+FFFD.
  registerJsonParsers(app);

  const engine = new Idempotency({
    sql,
    schema: config.schema,
    ttlMs: config.idempotencyTtlMs,
    ...(options.now ? { now: options.now } : {}),
  });
  const events = options.events ?? createRegistry();
  const webhooks =
    options.webhooks ??
    new Webhooks({
      sql,
      schema: config.schema,
      allowHttp: config.webhookAllowHttp ?? false,
      allowList: config.webhookAllowList ?? [],
      validate: eventValidator(events),
      ...(config.webhookMaxEndpointsPerTenant
        ? { maxEndpointsPerTenant: config.webhookMaxEndpointsPerTenant }
        : {}),
    });
  app.decorate('sql', sql);
  app.decorate('idempotency', engine);
  app.decorate('webhooks', webhooks);
  app.decorate('events', events);
  const metrics = options.metrics ?? new Metrics({ defaults: false });
  app.decorate('metrics', metrics);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new HttpProblem(404, 'not_found', 'Not found', `No route ${request.method} ${request.url}.`),
      request.url,
    ),
  );

  // Every route documents every answer it can give: the problem+json statuses are added here from
  // what the route does (idempotency, preconditions, a body), so /openapi.json cannot forget one.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) {
      route.config = { ...route.config, public: true };
      // Every /docs route, the static files too (the plugin's own hooks skip those).
      route.onRequest = [...([] as onRequestHookHandler[]).concat(route.onRequest ?? []), docsHeaders];
      return;
    }
    if (!route.url.startsWith('/v1') || !route.schema) return;
    const methods = ([] as string[]).concat(route.method);
    const idem = route.config?.idempotency;
    const conditional = methods.some((m) => m === 'PUT' || m === 'PATCH') || route.url.endsWith('/ship');
    const cacheable =
      methods.includes('GET') && /\/(orders|inventory|webhook-endpoints)\/:\w+$/.test(route.url);
    const statuses: Record<number, string> = {
      400:
        'Invalid input (code: validation_failed, invalid_json, invalid_character, invalid_url, ' +
        'invalid_cursor, date_out_of_range, idempotency_key_missing, …)',
      401: 'Missing or invalid API key',
      404: 'No such resource for this tenant',
      503: 'Database or idempotency store unavailable; nothing was changed',
    };
    if (idem) {
      statuses[409] = 'A request with this Idempotency-Key is in flight (Retry-After), or a conflict';
      statuses[422] = 'The Idempotency-Key was used with a different request';
    }
    if (cacheable) statuses[304] = 'Not modified (If-None-Match matched the current ETag)';
    if (conditional) {
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
  });

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
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // validatorUrl null: the UI would otherwise fetch a badge from validator.swagger.io.
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
    // Swagger UI shares the dashboard's origin (and so its sessionStorage API key): the same strict
    // policy, with data: images (its stylesheet draws icons as data: SVGs). It needs no inline script,
    // no eval and nothing from another origin (checked in test/operations.test.ts).
    staticCSP: DOCS_CSP,
    // the UI's own routes answer without an API key
    uiHooks: {},
  });
  registerMetrics(app, metrics);
  // The event contract, built from the same registry that validates every published payload.
  const contract = serviceContract(events);
  const contractJson = toJson(contract);
  const contractYaml = toYaml(contract);
  app.get('/asyncapi.json', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/json; charset=utf-8').send(contractJson),
  );
  app.get('/asyncapi.yaml', { config: { public: true }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('application/yaml; charset=utf-8').send(contractYaml),
  );

  // Draining: answers sent while closing carry `Connection: close`, so a keep-alive client does not
  // hold the process open for Fastify's 72 s keep-alive timeout after its last in-flight request.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  registerAuth(app, config.apiKeys);
  await app.register(idempotency, {
    engine,
    tenant: (request) => request.tenant,
    errorResponse: (error, request) =>
      error instanceof HttpProblem ? error.toStoredResponse(request.url) : undefined,
    onOutcome: (outcome) => metrics.idempotency.inc({ outcome }),
  });
  // Registered after the idempotency plugin, so it wraps it: when the caller's deadline
  // (Surety-Timeout-Ms, sent by @surety/fetch) passes first, the caller gets 504 at once and the
  // idempotent operation rolls back (nothing stored), so the caller's retry with the same key runs it.
  await app.register(deadline);
  healthRoutes(app);
  paymentRoutes(app, config.schema, { idempotent: options.idempotentPayments ?? true });
  orderRoutes(app, config.schema);
  inventoryRoutes(app, config.schema);
  webhookRoutes(app);
  eventRoutes(app);
  registerDashboard(app);
  return app;
}

/** Frame protection and nosniff for Swagger UI (its CSP is the plugin's `staticCSP`). */
const docsHeaders: onRequestHookHandler = async (_request, reply) => {
  reply
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
};

function makeValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = new Ajv({
    removeAdditional: false,
    coerceTypes: false,
    allErrors: true,
    useDefaults: true,
    strict: false,
  });
  const coercing = new Ajv({
    removeAdditional: false,
    coerceTypes: true,
    allErrors: true,
    useDefaults: true,
    strict: false,
  });
  for (const ajv of [strict, coercing]) {
    addFormats.default(ajv, ['date-time', 'date', 'uri', 'email', 'uuid']);
    ajv.addKeyword(STORABLE_DATE_TIME);
  }
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(withStorableDates(schema)) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/**
 * Every `format: "date-time"` of every schema also gets this keyword: RFC 3339 allows instants
 * that PostgreSQL cannot be sent (year 0000; `0001-01-01T00:30:00+01:00` is year 0 in UTC; and
 * `9999-12-31T23:59:59-00:01` year 10000). They are refused with 400 `date_out_of_range`.
 */
const STORABLE_DATE_TIME = {
  keyword: 'x-storable-date-time',
  type: 'string',
  schemaType: 'boolean',
  errors: true,
  validate: function storable(this: unknown, _schema: boolean, data: string): boolean {
    const ms = Date.parse(data);
    if (isStorableTimestamp(ms)) return true;
    const readable = !Number.isNaN(ms);
    (storable as { errors?: unknown[] }).errors = [
      {
        keyword: 'x-storable-date-time',
        message: readable
          ? 'must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z (UTC)'
          : 'is not a date-time this service can read',
        params: { outOfRange: readable },
      },
    ];
    return false;
  },
} as const;

/** The schema with the storable-date keyword beside every `format: "date-time"` (a copy). */
function withStorableDates(schema: unknown): object {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (typeof s !== 'object' || s === null) return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s))
      out[k] = k === 'enum' || k === 'const' || k === 'default' || k === 'examples' ? v : walk(v);
    if (out.format === 'date-time') out['x-storable-date-time'] = true;
    return out;
  };
  return walk(schema) as object;
}
