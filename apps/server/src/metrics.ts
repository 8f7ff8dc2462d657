import type { DeliveryWorker, MaintenanceReport } from '@surety/webhooks';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The service's Prometheus metrics (docs/operations.md lists what to alert on). */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'surety_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'surety_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly idempotency = new Counter({
    name: 'surety_idempotency_outcomes_total',
    help: 'Idempotency-Key outcomes: executed, replayed, in_flight (409), mismatch (422), unavailable (503)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly idempotencyStored = new Histogram({
    name: 'surety_idempotency_stored_body_bytes',
    help: 'Response bodies stored with idempotency keys: bytes as stored (after compression; 0 when omitted above the cap), by encoding (text, gzip, omitted); _sum is the bytes stored',
    labelNames: ['encoding'] as const,
    buckets: [64, 256, 1024, 4096, 16_384, 65_536, 262_144, 1_048_576],
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: 'surety_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (delivered, retry, failed, throttled: a 429/503 not counted against the delivery)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly attemptDuration = new Histogram({
    name: 'surety_webhook_attempt_duration_seconds',
    help: 'Duration of webhook delivery attempts',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly deliveryLatency = new Histogram({
    name: 'surety_webhook_delivery_latency_seconds',
    help: 'From an event being published to a successful delivery',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 300, 3600, 86400],
    registers: [this.registry],
  });
  readonly pollEvents = new Counter({
    name: 'surety_webhook_poll_events_total',
    help: 'Poll endpoints: events answered to reads (read) and deliveries completed by acknowledgements (acknowledged)',
    labelNames: ['stage'] as const,
    registers: [this.registry],
  });
  readonly pollRefused = new Counter({
    name: 'surety_webhook_poll_refused_total',
    help: "Long-polls refused with 429 too_many_polls (the tenant's waits at their cap in this process)",
    registers: [this.registry],
  });
  readonly endpointsDisabled = new Counter({
    name: 'surety_webhook_endpoints_disabled_total',
    help: 'Endpoints disabled automatically (410 Gone or failing too long)',
    registers: [this.registry],
  });

  readonly unstorableOutcomes = new Counter({
    name: 'surety_webhook_unstorable_outcomes_total',
    help: 'Attempt outcomes PostgreSQL could not store as they were, by how they were stored: replaced (NUL or lone surrogates in receiver text replaced by U+FFFD), text_dropped, attempt_dropped (delivery recorded with attempt_unrecorded), lost',
    labelNames: ['handled'] as const,
    registers: [this.registry],
  });
  readonly circuitTransitions = new Counter({
    name: 'surety_webhook_circuit_transitions_total',
    help: 'Endpoint circuit breakers: opened, probe_failed (held deliveries moved behind the next probe), closed',
    labelNames: ['transition'] as const,
    registers: [this.registry],
  });
  readonly circuitHeld = new Counter({
    name: 'surety_webhook_circuit_held_total',
    help: 'Deliveries moved behind a circuit breaker probe (rows rewritten when a breaker opens or a probe fails)',
    registers: [this.registry],
  });

  readonly throttleDecreases = new Counter({
    name: 'surety_webhook_throttle_decreases_total',
    help: 'Adaptive throttling: endpoint in-flight caps and rates lowered, by signal: throttled (a 429 or 503), latency (answers slower than usual)',
    labelNames: ['signal'] as const,
    registers: [this.registry],
  });

  readonly operationalEvents = new Counter({
    name: 'surety_webhook_operational_events_total',
    help: 'Operational events published by this process, by type (endpoint.circuit_opened, delivery.failed, endpoint.backlog_exceeded, …)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly partitionsHeld = new Gauge({
    name: 'surety_webhook_partitions_held',
    help: 'History windows past retention that the last maintenance run could not drop, by reason: pending (deliveries still pending in them or for their events), locked (locks not granted in time)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly partitionsReadyUntil = new Gauge({
    name: 'surety_webhook_partitions_ready_until_seconds',
    help: 'Unix time the last history partition ends at: rows after it land in the DEFAULT partition (alert when it comes within a day of now)',
    registers: [this.registry],
  });
  readonly partitionLockTimeouts = new Counter({
    name: 'surety_webhook_partition_lock_timeouts_total',
    help: 'Tries of a partition maintenance step that waited out their short lock wait (50 ms) and were tried again or given up; each held the statements queued behind it that long at most',
    registers: [this.registry],
  });
  readonly partitionMaintenanceFailures = new Counter({
    name: 'surety_webhook_partition_maintenance_failures_total',
    help: 'Partition maintenance runs that failed (logged with the error)',
    registers: [this.registry],
  });

  readonly clockSkew = new Gauge({
    name: 'surety_webhook_clock_skew_seconds',
    help: "This process's clock minus the database's, as the last partition maintenance run measured it; past 300 s maintenance is refused (alert on it)",
    registers: [this.registry],
  });
  readonly partitionGaps = new Counter({
    name: 'surety_webhook_partition_gaps_total',
    help: 'Gaps between history windows that maintenance found (and filled): rows dated in one went to the DEFAULT partition (alert on any)',
    registers: [this.registry],
  });
  /** Records a partition maintenance run's report. */
  observeMaintenance(report: MaintenanceReport): void {
    this.clockSkew.set(report.clockSkewMs / 1000);
    this.partitionGaps.inc(report.gaps.length);
    for (const reason of ['pending', 'locked'] as const) {
      this.partitionsHeld.set({ reason }, report.held.filter((h) => h.reason === reason).length);
    }
    this.partitionsReadyUntil.set(Date.parse(report.readyUntil) / 1000);
    this.partitionLockTimeouts.inc(report.lockTimeouts);
  }

  constructor(options: { defaults?: boolean } = {}) {
    if (options.defaults ?? true)
      collectDefaultMetrics({ register: this.registry, prefix: 'surety_process_' });
  }

  /** Counts a worker's attempts (only workers in this process). */
  observeWorker(worker: DeliveryWorker): void {
    worker.on('attempt:finished', (a) => {
      this.attempts.inc({ outcome: a.outcome });
      this.attemptDuration.observe(a.durationMs / 1000);
      if (a.outcome === 'delivered') this.deliveryLatency.observe(Math.max(0, a.latencyMs) / 1000);
    });
    worker.on('endpoint:disabled', () => this.endpointsDisabled.inc());
    worker.on('outcome:unstorable', (o) => this.unstorableOutcomes.inc({ handled: o.handled }));
    worker.on('circuit:opened', (e) => {
      this.circuitTransitions.inc({ transition: 'opened' });
      this.circuitHeld.inc(e.held);
    });
    worker.on('circuit:probe_failed', (e) => {
      this.circuitTransitions.inc({ transition: 'probe_failed' });
      this.circuitHeld.inc(e.held);
    });
    worker.on('circuit:closed', () => this.circuitTransitions.inc({ transition: 'closed' }));
    worker.on('throttle:decreased', (e) => this.throttleDecreases.inc({ signal: e.signal }));
    worker.on('operational:published', (e) => this.operationalEvents.inc({ type: e.type }));
  }
}

/** `/metrics`, HTTP metrics on every route, and the delivery backlog read from the database at scrape time. */
export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  const backlog = new Gauge({
    name: 'surety_webhook_backlog',
    help: 'Pending deliveries: due now, scheduled for later, in flight (claimed, lease not passed), and unacknowledged (poll endpoints: read by their consumers, not yet acknowledged)',
    labelNames: ['state'] as const,
    registers: [metrics.registry],
  });
  const oldestDue = new Gauge({
    name: 'surety_webhook_oldest_due_seconds',
    help: 'How long the oldest due delivery has been waiting (0 when none): the alert for stuck or too few workers',
    registers: [metrics.registry],
  });
  const circuits = new Gauge({
    name: 'surety_webhook_circuits',
    help: 'Endpoints whose circuit breaker is open (waiting for its probe) or half_open (probe due or in flight)',
    labelNames: ['state'] as const,
    registers: [metrics.registry],
  });
  const throttled = new Gauge({
    name: 'surety_webhook_throttled_endpoints',
    help: 'Endpoints under adaptive throttling (their in-flight cap and rate lowered after 429/503 or climbing latency), and those paused by a Retry-After',
    labelNames: ['state'] as const,
    registers: [metrics.registry],
  });
  let cached: Promise<void> | undefined;
  const collect = () => {
    // one query per scrape, shared by both gauges
    cached ??= app.webhooks
      .backlog()
      .then((b) => {
        circuits.set({ state: 'open' }, b.circuits.open);
        circuits.set({ state: 'half_open' }, b.circuits.halfOpen);
        throttled.set({ state: 'throttled' }, b.throttled.throttled);
        throttled.set({ state: 'paused' }, b.throttled.paused);
        backlog.set({ state: 'due' }, b.due);
        backlog.set({ state: 'scheduled' }, b.scheduled);
        backlog.set({ state: 'in_flight' }, b.inFlight);
        backlog.set({ state: 'unacknowledged' }, b.unacknowledged);
        oldestDue.set(b.oldestDueSeconds);
      })
      .finally(() => {
        cached = undefined;
      });
    return cached;
  };

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    metrics.httpRequests.inc({ route, method: request.method, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  });

  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    await collect().catch(() => {
      /* database down: the gauges keep their last values; surety_http_* still shows the 503s */
    });
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
