import type { Sql } from '@surety/db';
import { type EventRegistry, isEventError } from '@surety/events';
import { deadline } from '@surety/fetch/fastify';
import { Idempotency } from '@surety/idempotency';
import { idempotency } from '@surety/idempotency/fastify';
import { InvalidEventError, type PollWaitsOptions, Webhooks } from '@surety/webhooks';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { registerAuth } from './auth.js';
import { clientErrorHandler } from './client-error.js';
import type { Config } from './config.js';
import { registerDashboard } from './dashboard/index.js';
import { portalData } from './data/portal.js';
import { flushAnswersOnClose } from './drain.js';
import { TenantTypes } from './event-types/tenant-types.js';
import { takeVouch } from './event-types/vouched.js';
import { registerInputCheck, registerJsonParsers } from './input.js';
import { Metrics, registerMetrics } from './metrics.js';
import { registerOpenApi } from './openapi.js';
import { paymentOperation } from './payments/operation.js';
import { registerPortalPage } from './portal/page.js';
import { errorHandler, HttpProblem, sendProblem, toProblem } from './problem.js';
import type { PspClient } from './psp/client.js';
import { paymentProvider } from './psp/provider.js';
import { registerRoutes } from './routes/index.js';
import { serviceRegistry } from './service-events.js';
import { makeValidatorCompiler } from './validation.js';

declare module 'fastify' {
  interface FastifyInstance {
    sql: Sql;
    /** The list routes' database: the read replica (SURETY_DATABASE_REPLICA_URL), or `sql`. */
    reads: Sql;
    idempotency: Idempotency;
    webhooks: Webhooks;
    metrics: Metrics;
    events: EventRegistry;
    /** The tenants' own event types: compiled validators and the publish check. */
    eventTypes: TenantTypes;
    /** The payment provider, and the phased operation of POST /v1/payments (for the completer). */
    payments: {
      psp: PspClient;
      /** True when it is the in-process simulated provider (SURETY_PSP_URL unset). */
      simulated: boolean;
      operation: ReturnType<typeof paymentOperation>;
    };
  }
}

export interface AppOptions {
  sql: Sql;
  /** A read replica for the list routes (docs/operations.md, "Read replicas"). @default sql */
  reads?: Sql;
  config: Pick<Config, 'apiKeys' | 'bodyLimit' | 'idempotencyTtlMs' | 'schema'> &
    Partial<
      Pick<
        Config,
        | 'webhookAllowList'
        | 'webhookAllowHttp'
        | 'webhookMaxEndpointsPerTenant'
        | 'publicUrl'
        | 'pspUrl'
        | 'pspDeadlineMs'
        | 'pspGiveUpMs'
        | 'idempotencyLeaseMs'
        | 'idempotencyGuard'
      >
    >;
  /**
   * The payment provider's client; built from `config.pspUrl` when absent, and when that is unset
   * too, the simulated provider runs in-process on loopback (closed with the app).
   */
  psp?: PspClient;
  /** The webhook engine; built from `config` when absent. */
  webhooks?: Webhooks;
  /** Prometheus metrics; a fresh registry when absent. */
  metrics?: Metrics;
  /** The event registry (types and payload schemas); the service's events when absent. */
  events?: EventRegistry;
  /** Fastify's logger option. @default false */
  logger?: FastifyServerOptions['logger'];
  /** Injected clock for the idempotency engine and portal sessions (tests). */
  now?: () => number;
  /**
   * The longest a client may take to send a whole request (headers and body), in milliseconds; a
   * client that trickles its bytes is answered 408 and cut off. @default 30000
   */
  requestTimeoutMs?: number;
  /** Benchmark baseline only: serve POST /v1/payments without the idempotency layer. @default true */
  idempotentPayments?: boolean;
  /** Poll endpoints' long-polls: the per-tenant cap on waits and the check interval (routes/endpoint-poll.ts). */
  pollWaits?: PollWaitsOptions;
}

/**
 * `publish` refuses a payload its type's schema rejects, and a type the registry does not know, so
 * a bad event can never reach a customer. A tenant's own type was validated by the publish route
 * against the tenant's schema, which vouched for that very payload (event-types/vouched.ts).
 */
export function eventValidator(events: EventRegistry) {
  return (type: string, data: unknown): void => {
    if (takeVouch(type, data)) return;
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

/** Redacts credentials from request logs: API keys must never reach a log line. */
export const LOG_REDACT = ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'];

/** Builds the service without listening: routes, auth, idempotency, problem+json errors. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { config } = options;
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
  try {
    await configure(app, options);
  } catch (error) {
    // What the build had started (the simulated provider, pools, timers) closes with the app, so a
    // build that fails leaves nothing running.
    await app.close().catch(() => {});
    throw error;
  }
  return app;
}

async function configure(app: FastifyInstance, options: AppOptions): Promise<void> {
  const { sql, config } = options;
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
    ...(config.idempotencyLeaseMs ? { leaseMs: config.idempotencyLeaseMs } : {}),
    ...(options.now ? { now: options.now } : {}),
    // Called after COMMIT, by which time `metrics` below exists.
    onStored: ({ storedBytes, encoding }) => metrics.idempotencyStored.observe({ encoding }, storedBytes),
    // The naive-ORM guard (docs/orm.md) is for applications that bring their own ORM; the service's
    // routes write through the request's tx, and the guard's statement per 2xx cost a third of the
    // keyed POST throughput (bench/idempotency/guard.ts), so it stays off unless asked for
    // (config.idempotencyGuard, SURETY_IDEMPOTENCY_GUARD=true). Its warnings go to the app's logger.
    warnOnEmptyTransaction: config.idempotencyGuard ?? false,
    onWarning: (w) => app.log.warn({ code: w.code, tenant: w.tenant, status: w.status }, w.message),
  });
  const events = options.events ?? serviceRegistry();
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
  app.decorate('reads', options.reads ?? sql);
  app.decorate('idempotency', engine);
  app.decorate('webhooks', webhooks);
  app.decorate('events', events);
  // A body of n bytes holds at most n/2 JSON values (`0,`): the cost model's data bound.
  const eventTypes = new TenantTypes(config.schema, { maxValues: Math.ceil(config.bodyLimit / 2) });
  app.decorate('eventTypes', eventTypes);
  app.addHook('onClose', () => eventTypes.close());
  const { psp, simulated } = await paymentProvider(app, options.psp, config);
  const payments = {
    psp,
    simulated,
    operation: paymentOperation({
      schema: config.schema,
      webhooks,
      psp,
      giveUpMs: config.pspGiveUpMs ?? 600_000,
      ...(options.now ? { now: options.now } : {}),
    }),
  };
  app.decorate('payments', payments);
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

  // Before any route: each documented route's parameters, answers and codes come from what it
  // declares, and a route that leaves something out is refused (openapi-operation.ts).
  await registerOpenApi(app, { idempotencyTtlMs: config.idempotencyTtlMs });
  registerMetrics(app, metrics);

  // Draining: answers sent while closing carry `Connection: close`, so a keep-alive client does not
  // hold the process open for Fastify's 72 s keep-alive timeout after its last in-flight request.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  // …and answers already ended but still leaving are not cut off by the server's close (drain.ts).
  flushAnswersOnClose(app);

  const now = options.now ?? Date.now;
  const portal = portalData(config.schema);
  registerAuth(app, config.apiKeys, { data: portal, now });
  await app.register(idempotency, {
    engine,
    // A portal session's keys are its application's own: a customer's key can never replay (or
    // collide with) an answer the tenant's own request stored. Tenant names cannot hold ':'.
    tenant: (request) =>
      request.portal ? `${request.tenant}:portal:${request.portal.applicationId}` : request.tenant,
    errorResponse: (error, request) =>
      error instanceof HttpProblem ? error.toStoredResponse(request.url) : undefined,
    onOutcome: (outcome) => metrics.idempotency.inc({ outcome }),
  });
  // Registered after the idempotency plugin, so it wraps it: when the caller's deadline
  // (Surety-Timeout-Ms, sent by @surety/fetch) passes first, the caller gets 504 at once and the
  // idempotent operation rolls back (nothing stored), so the caller's retry with the same key runs it.
  await app.register(deadline);
  // The routes, registered after every hook above (a plugin's context takes the hooks its parent
  // has when it loads).
  await registerRoutes(app, {
    schema: config.schema,
    events,
    portal,
    now,
    publicUrl: config.publicUrl,
    idempotentPayments: options.idempotentPayments ?? true,
    paymentOperation: payments.operation,
    ...(options.pollWaits ? { pollWaits: options.pollWaits } : {}),
  });
  registerDashboard(app);
  registerPortalPage(app, { data: portal });
}
