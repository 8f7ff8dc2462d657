import swagger from '@fastify/swagger';
import type { Sql } from '@surety/db';
import { Idempotency } from '@surety/idempotency';
import { idempotency } from '@surety/idempotency/fastify';
import { Webhooks } from '@surety/webhooks';
import { Ajv } from 'ajv';
import Fastify, {
  type FastifyInstance,
  type FastifySchemaCompiler,
  type FastifyServerOptions,
} from 'fastify';
import { registerAuth } from './auth.js';
import type { Config } from './config.js';
import { errorHandler, HttpProblem, sendProblem } from './problem.js';
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
  }
}

export interface AppOptions {
  sql: Sql;
  config: Pick<Config, 'apiKeys' | 'bodyLimit' | 'idempotencyTtlMs' | 'schema'> &
    Partial<Pick<Config, 'webhookAllowList' | 'webhookAllowHttp'>>;
  /** The webhook engine; built from `config` when absent. */
  webhooks?: Webhooks;
  /** Fastify's logger option. @default false */
  logger?: FastifyServerOptions['logger'];
  /** Injected clock for the idempotency engine (tests). */
  now?: () => number;
  /** Benchmark baseline only: serve POST /v1/payments without the idempotency layer. @default true */
  idempotentPayments?: boolean;
}

/** Redacts credentials from request logs: API keys must never reach a log line. */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

/** Builds the service without listening: routes, auth, idempotency, problem+json errors. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { sql, config } = options;
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: config.bodyLimit,
    // Requests are answered well within this; a client that trickles its body is cut off.
    requestTimeout: 30_000,
    connectionTimeout: 60_000,
    return503OnClosing: true,
  });
  // Bodies are rejected, never silently repaired: unknown fields are an error and types are not
  // coerced (Fastify's default ajv removes unknown fields and coerces "1" to 1). Query strings and
  // params are strings on the wire, so they alone are coerced (limit=20).
  app.setValidatorCompiler(makeValidatorCompiler());
  // JSON only: any other media type is a 415, not a string that fails validation later.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    'application/merge-patch+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );

  const engine = new Idempotency({
    sql,
    schema: config.schema,
    ttlMs: config.idempotencyTtlMs,
    ...(options.now ? { now: options.now } : {}),
  });
  const webhooks =
    options.webhooks ??
    new Webhooks({
      sql,
      schema: config.schema,
      allowHttp: config.webhookAllowHttp ?? false,
      allowList: config.webhookAllowList ?? [],
    });
  app.decorate('sql', sql);
  app.decorate('idempotency', engine);
  app.decorate('webhooks', webhooks);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(
      reply,
      new HttpProblem(404, 'not_found', 'Not found', `No route ${request.method} ${request.url}.`),
      request.url,
    ),
  );

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
  });
  healthRoutes(app);
  paymentRoutes(app, config.schema, { idempotent: options.idempotentPayments ?? true });
  orderRoutes(app, config.schema);
  inventoryRoutes(app, config.schema);
  webhookRoutes(app);
  eventRoutes(app);
  return app;
}

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
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}
