import type { Sql } from '@surety/db';
import type { Idempotency } from '@surety/idempotency';
import { DeliveryWorker, isClockSkewError, type Webhooks } from '@surety/webhooks';
import type { FastifyInstance } from 'fastify';
import { buildApp, LOG_REDACT } from './app.js';
import type { Config } from './config.js';
import { portalData } from './data/portal.js';
import { canListen, migrateService, openReplicaSql, openServiceSql, POLL_INTERVAL_MS } from './database.js';
import { traceFields } from './log-trace.js';
import { Metrics } from './metrics.js';

export { allMigrations, runMigrations } from './database.js';

export interface Running {
  app: FastifyInstance;
  sql: Sql;
  url: string;
  worker: DeliveryWorker | undefined;
  /**
   * Stops accepting, lets in-flight requests finish, stops the worker, closes the database: all of
   * it `app.close()`'s hooks, so closing the app directly shuts down the same way.
   */
  stop(): Promise<void>;
}

/** Opens the database, migrates, and listens. */
export async function startServer(config: Config): Promise<Running> {
  const logger = { level: config.logLevel, redact: LOG_REDACT, mixin: traceFields };
  const sql = await openServiceSql(config);
  try {
    await migrateService(sql, config);
  } catch (error) {
    await sql.close();
    throw error;
  }
  const metrics = new Metrics();
  const reads = openReplicaSql(config);
  const app = await buildApp({ sql, reads, config, logger, metrics });
  const portal = portalData(config.schema);
  const purges = startPurges(
    app.idempotency,
    () => portal.purgeSessions(sql, { before: new Date(Date.now() - 86_400_000).toISOString() }),
    config,
    app.log,
  );
  const delivery = config.worker ? startWorker(app.webhooks, config, app.log, metrics) : undefined;
  // The completer finishes payments nobody retries (their process died, or the provider gave no
  // definitive answer): it runs with the worker (docs/side-effects.md).
  const completer = config.worker
    ? app.idempotency.completer({
        operations: [app.payments.operation],
        onError: (err, at) =>
          app.log.warn({ err, key: at.key, operation: at.operation }, 'completer: not finished'),
      })
    : undefined;
  if (delivery) metrics.observeWorker(delivery.worker);
  // Shutdown is the app's own lifecycle: no purge starts once closing begins; after the last
  // in-flight request, the worker finishes its attempts, then the database closes.
  app.addHook('preClose', () => purges.stop());
  app.addHook('preClose', async () => completer?.stop());
  app.addHook('onClose', async () => {
    await delivery?.stop();
    await reads?.close();
    await sql.close();
  });
  const url = await app.listen({ port: config.port, host: config.host });
  await delivery?.worker.start();
  completer?.start();
  let stopping: Promise<void> | undefined;
  return {
    app,
    sql,
    url,
    worker: delivery?.worker,
    stop() {
      stopping ??= app.close();
      return stopping;
    },
  };
}

interface Log {
  info(o: object, msg: string): void;
  warn(o: object, msg: string): void;
}

/** A delivery worker with its companion jobs; `stop` ends the jobs, then the worker. */
export interface ServiceWorker {
  worker: DeliveryWorker;
  /** Stops the retention job, then the worker (it finishes the attempts in flight). */
  stop(): Promise<void>;
}

/**
 * The housekeeping purges, every `config.idempotencyPurge.intervalMs`: expired idempotency keys
 * (paced as configured, one run at a time: a run still going at the next tick is left to finish,
 * and each ends within the interval) and portal sessions a day past their expiry (their tokens
 * then answer 401 invalid instead of expired). `stop` ends the key purge after its current batch.
 */
export function startPurges(
  idempotency: Pick<Idempotency, 'purgeExpired'>,
  purgeSessions: () => Promise<number>,
  config: Pick<Config, 'idempotencyPurge'>,
  log: Log,
): { stop(): Promise<void> } {
  const { intervalMs, ...pacing } = config.idempotencyPurge;
  const stopping = new AbortController();
  let purging: Promise<void> | undefined;
  const timer = setInterval(() => {
    purging ??= idempotency
      .purgeExpired({ ...pacing, maxDurationMs: intervalMs, signal: stopping.signal })
      .then((n) => void (n > 0 && log.info({ purged: n }, 'purged expired idempotency keys')))
      .catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'))
      .finally(() => {
        purging = undefined;
      });
    purgeSessions()
      .then((n) => n > 0 && log.info({ purged: n }, 'purged expired portal sessions'))
      .catch((error: unknown) => log.warn({ err: error }, 'portal session purge failed'));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      await purging;
    },
  };
}

/**
 * A delivery worker with the service's settings, logging what operators need, and the webhook
 * partition maintenance beside it (run once now, then hourly; the worker is not yet started: call
 * `worker.start()`).
 */
export function startWorker(webhooks: Webhooks, config: Config, log: Log, metrics?: Metrics): ServiceWorker {
  // Behind a transaction pooler without a direct URL there is no session to LISTEN on: the worker
  // finds new events by its idle poll, so one waits at most POLL_INTERVAL_MS before its claim.
  const listen = canListen(config);
  if (!listen) {
    log.info(
      { pollIntervalMs: POLL_INTERVAL_MS, setting: 'SURETY_DATABASE_DIRECT_URL' },
      'behind a transaction pooler without SURETY_DATABASE_DIRECT_URL: webhook workers poll instead of LISTEN',
    );
  }
  const worker = new DeliveryWorker({
    webhooks,
    listen,
    pollIntervalMs: POLL_INTERVAL_MS,
    schedule: config.webhookSchedule,
    concurrency: config.webhookConcurrency,
    maxInFlightPerEndpoint: config.webhookMaxInFlightPerEndpoint,
    maxInFlightPerTenant: config.webhookMaxInFlightPerTenant,
    guard: { allowList: config.webhookAllowList, allowHttp: config.webhookAllowHttp },
    // Operational events (docs/webhooks.md): breaker changes, deliveries failed for good, backlog
    // crossings, expiring secrets, published to the tenant's endpoints subscribed to them.
    operationalEvents: true,
    backlogThreshold: config.webhookBacklogThreshold,
  });
  worker.on('worker:error', (err) => log.warn({ err }, 'delivery worker error'));
  worker.on('endpoint:disabled', (e) => log.warn(e, 'webhook endpoint disabled'));
  // Partition maintenance (docs/operations.md, "Partitions and retention"): windows created ahead
  // and expired ones dropped whole, at start and then hourly; off where pg_partman manages them.
  let running: Promise<void> | undefined;
  const maintain = () => {
    running ??= run().finally(() => {
      running = undefined;
    });
  };
  const run = () =>
    webhooks
      .maintain({
        retentionDays: config.retentionDays,
        partitionDays: config.webhookPartitionDays,
        ahead: config.webhookPartitionsAhead,
      })
      .then((r) => {
        metrics?.observeMaintenance(r);
        if (r.created.length > 0 || r.dropped.length > 0) {
          log.info({ created: r.created, dropped: r.dropped }, 'webhook history partitions maintained');
        }
        if (r.gaps.length > 0)
          log.warn({ gaps: r.gaps }, 'webhook history partitions had gaps (rows went to DEFAULT); filled');
        if (r.held.length > 0) log.warn({ held: r.held }, 'webhook history partitions past retention kept');
        if (r.createBlocked)
          log.warn(
            { readyUntil: r.readyUntil, lockTimeouts: r.lockTimeouts },
            'webhook partition creation waited too long for its locks',
          );
      })
      .catch((err: unknown) => {
        metrics?.partitionMaintenanceFailures.inc();
        if (isClockSkewError(err)) {
          metrics?.clockSkew.set(err.skewMs / 1000);
          log.warn({ skewMs: err.skewMs }, err.message);
        } else log.warn({ err }, 'webhook partition maintenance failed');
      });
  let retention: NodeJS.Timeout | undefined;
  if (config.webhookPartitionMaintenance) {
    maintain();
    retention = setInterval(maintain, 60 * 60_000);
    retention.unref();
  } else {
    log.info(
      { setting: 'SURETY_WEBHOOK_PARTITION_MAINTENANCE=off' },
      'webhook partition maintenance is off: the history partitions are created and dropped outside the service',
    );
  }
  return {
    worker,
    async stop() {
      clearInterval(retention);
      await running;
      await worker.stop();
    },
  };
}
