import type { ReceiverAuthOptions } from '../auth/index.js';
import type { BrokerPublisherOptions, PublishFn } from '../destinations/index.js';
import { DEFAULT_SCHEDULE } from '../schedule.js';
import type { GuardOptions } from '../ssrf/index.js';
import type { Webhooks } from '../webhooks.js';
import type { PostFn } from './attempt.js';

export interface DeliveryWorkerOptions {
  webhooks: Webhooks;
  /** Fencing identity of this worker. @default host:pid:random */
  id?: string;
  /** Most HTTP attempts in flight at once. @default 64 */
  concurrency?: number;
  /** Most deliveries claimed per statement. @default 100 */
  batchSize?: number;
  /**
   * Most attempts in flight (claimed and not yet finished) for one endpoint, counted across every
   * worker on the database: a slow or hanging receiver holds at most this many slots, and its
   * tenant's other endpoints keep the rest of the tenant's. It also bounds one endpoint's throughput
   * to this many attempts per receiver round trip: raise it for a single-tenant deployment.
   * @default 32
   */
  maxInFlightPerEndpoint?: number;
  /**
   * Most attempts in flight for one tenant, across all its endpoints and every worker: one tenant's
   * hanging receivers or burst never take every slot. Keep it below the total concurrency of the
   * workers (the default is 3/4 of one default worker's).
   * @default 48
   */
  maxInFlightPerTenant?: number;
  /**
   * Most claimable due rows a claim reads to pick from (rows it skips, of full endpoints or tenants,
   * in flight, or without a token, do not count). The picks interleave the tenants seen in it; a
   * tenant that fills its slots is skipped by the next claim's walk, so a small window is fair over
   * consecutive claims, and each claim sorts this many rows.
   * @default 2 × batchSize
   */
  claimWindow?: number;
  /** How often to look for due retries when no NOTIFY arrives. @default 500 */
  pollIntervalMs?: number;
  /** How long a claimed delivery is reserved before another worker may take it. @default 60000 */
  leaseMs?: number;
  /** Whole-attempt timeout. @default 10000 */
  timeoutMs?: number;
  /** Delays after the first attempt, in seconds. @default DEFAULT_SCHEDULE (5s … 24h) */
  schedule?: readonly number[];
  /** Disable an endpoint with no success for this long. @default 5 days */
  disableAfterMs?: number;
  /** Longest receiver `Retry-After` honoured. @default 3600 */
  maxRetryAfterSeconds?: number;
  /**
   * Consecutive failed attempts to an endpoint that open its circuit breaker: its deliveries then
   * wait behind a single probe attempt (docs/webhooks.md). @default 10
   */
  circuitThreshold?: number;
  /** Wait before the first probe of an open breaker; doubles after each failed probe. @default 5000 */
  circuitProbeMs?: number;
  /**
   * Longest wait between two probes. Held deliveries are due 12 times this after the probe unless a
   * probe's success releases them first (1 hour by default): a long outage moves them once an hour.
   * @default 300000 (5 minutes)
   */
  circuitMaxProbeMs?: number;
  /**
   * Adaptive throttling (docs/webhooks.md): a 429 or 503 is recorded without spending the
   * delivery's attempt, is due again after its bounded Retry-After (which pauses the endpoint) or a
   * second, and lowers the endpoint's in-flight cap and rate; latency climbing lowers its cap. Both
   * grow back while it answers. `false`: 429 and 503 are retried on the schedule as any failure.
   * @default true
   */
  adaptiveThrottling?: boolean;
  /** Multiplicative decrease of a throttled endpoint's cap and rate. @default 0.7 */
  throttleDecrease?: number;
  /** Lowest adaptive rate, deliveries per second. @default 1 */
  throttleMinRate?: number;
  /** A throttle with no new signal for this long ends (the endpoint is unlimited again). @default 600000 */
  throttleRecoverMs?: number;
  /**
   * Latency climbing: a batch's mean answer time this many times the endpoint's usual one (and at
   * least `throttleLatencyFloorMs`) lowers its in-flight cap. @default 3
   */
  throttleLatencyFactor?: number;
  /** Answer times under this never count as latency climbing. @default 250 */
  throttleLatencyFloorMs?: number;
  /**
   * Operational events (docs/webhooks.md "Operational events"): the breaker's opening and closing
   * (`endpoint.circuit_opened` / `_closed`, in the health statement's transaction), deliveries
   * failed for good (`delivery.failed`, in the outcomes' transaction), and every
   * `monitorIntervalMs` backlog crossings and expiring secrets. `endpoint.disabled` is published
   * either way. Off, the worker writes as it did before them (the benches' figures).
   * @default false (the service turns it on)
   */
  operationalEvents?: boolean;
  /** How often the monitor looks for backlog crossings and expiring secrets. @default 30000 */
  monitorIntervalMs?: number;
  /** Pending deliveries of an endpoint that publish `endpoint.backlog_exceeded` (cleared at half). @default 1000 */
  backlogThreshold?: number;
  /** `endpoint.secret_expiring` this long before a rotated-out secret stops signing. @default 3600000 */
  secretExpiryNoticeMs?: number;
  /** At most one `endpoint.circuit_opened` per endpoint this often (a flapping breaker). @default 600000 */
  circuitNoticeQuietMs?: number;
  /** SSRF guard settings for the default transport (allow-list, timeouts, proxy). */
  guard?: GuardOptions;
  /** Replace the HTTP transport (tests inject a recorder). */
  post?: PostFn;
  /**
   * Receiver authentication (docs/receiver-auth.md): the OAuth2 token cache's bounds and clock, the
   * most mTLS endpoints kept connected. Used by the default transport only.
   * @default { marginMs: 30000, defaultLifetimeMs: 300000, timeoutMs: 5000, maxResponseBytes: 16384, failureHoldMs: 1000 }
   */
  auth?: ReceiverAuthOptions;
  /**
   * Broker endpoints (amqp, nats, mqtt; docs/destinations.md): pooled connections' bounds. The
   * broker's host is checked by `guard`'s rules (its allow-list and resolver), within its
   * `connectTimeoutMs`.
   */
  brokers?: Pick<BrokerPublisherOptions, 'maxLifetimeMs' | 'idleMs' | 'maxConnections'>;
  /** Replace the broker publisher (tests inject a recorder). */
  publish?: PublishFn;
  /** Use LISTEN/NOTIFY to wake at once on new events. @default true */
  listen?: boolean;
  /** Random source for jitter. @default Math.random */
  random?: () => number;
  /**
   * How long to gather outcomes before writing them in one statement. The attempt has already
   * happened; this only delays its record (and, in ordered mode, the next claim of that endpoint).
   * @default 20
   */
  flushIntervalMs?: number;
}

/** The options with their defaults, resolved once. */
export function resolveWorkerOptions(options: DeliveryWorkerOptions) {
  return {
    concurrency: options.concurrency ?? 64,
    batchSize: options.batchSize ?? 100,
    maxInFlightPerEndpoint: options.maxInFlightPerEndpoint ?? 32,
    maxInFlightPerTenant: options.maxInFlightPerTenant ?? 48,
    claimWindow: options.claimWindow ?? 2 * (options.batchSize ?? 100),
    pollIntervalMs: options.pollIntervalMs ?? 500,
    leaseMs: options.leaseMs ?? 60_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    schedule: options.schedule ?? DEFAULT_SCHEDULE,
    disableAfterMs: options.disableAfterMs ?? 5 * 86_400_000,
    maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 3600,
    circuitThreshold: options.circuitThreshold ?? 10,
    circuitProbeMs: options.circuitProbeMs ?? 5000,
    circuitMaxProbeMs: options.circuitMaxProbeMs ?? 300_000,
    adaptiveThrottling: options.adaptiveThrottling ?? true,
    throttleDecrease: options.throttleDecrease ?? 0.7,
    throttleMinRate: options.throttleMinRate ?? 1,
    throttleRecoverMs: options.throttleRecoverMs ?? 600_000,
    throttleLatencyFactor: options.throttleLatencyFactor ?? 3,
    throttleLatencyFloorMs: options.throttleLatencyFloorMs ?? 250,
    operationalEvents: options.operationalEvents ?? false,
    monitorIntervalMs: options.monitorIntervalMs ?? 30_000,
    backlogThreshold: options.backlogThreshold ?? 1000,
    secretExpiryNoticeMs: options.secretExpiryNoticeMs ?? 3_600_000,
    circuitNoticeQuietMs: options.circuitNoticeQuietMs ?? 600_000,
    listen: options.listen ?? true,
    random: options.random ?? Math.random,
    flushIntervalMs: options.flushIntervalMs ?? 20,
  };
}

export type ResolvedWorkerOptions = ReturnType<typeof resolveWorkerOptions>;
