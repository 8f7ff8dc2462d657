// Endpoint health after each recorded batch: last success/failure, the failure streak, the circuit
// breaker (in the health statement, sql/health.ts) and disabling (410 Gone, or failing too long).
import type { Queryable, Sql, Tx } from '@surety/db';
import { type EndpointBatch, type HealthRow, recordHealth } from '../sql/health.js';
import type { Statements } from '../sql/index.js';
import { circuitNotice } from '../sql/operational.js';
import { recordThrottle, type ThrottleSignal } from '../sql/throttle.js';
import { healthEffect } from './classify.js';
import type { LateHolds } from './late-holds.js';
import type { OperationalEvent } from './operational.js';
import type { Completion } from './outcome-writer.js';

/** Held deliveries wait this many longest probe intervals past the probe (1 hour by default). */
const HOLD_PROBES = 12;
/** One decrease per endpoint per this long at most (the answers of that second reflect the old rate). */
const THROTTLE_GUARD_MS = 1000;
/** Answers an endpoint's usual latency is learnt from before it can be said to climb. */
const LATENCY_SAMPLES = 20;
/** Weight of a batch in the usual latency (an exponentially weighted mean). */
const LATENCY_WEIGHT = 0.1;
/** Endpoints whose usual latency one worker remembers (the oldest forgotten first). */
const LATENCY_ENDPOINTS = 10_000;
/** A success this soon after the endpoint was recorded healthy is not recorded (last_success_at is kept to the second). */
const HEALTHY_FOR_MS = 1000;

/** Adaptive throttling's settings (worker-options.ts). */
export interface ThrottleOptions {
  /** `adaptiveThrottling`: false, no signal is looked for. */
  enabled: boolean;
  decrease: number;
  minRate: number;
  maxCap: number;
  recoverMs: number;
  latencyFactor: number;
  latencyFloorMs: number;
}

export interface HealthOptions {
  sql: Sql;
  st: Statements;
  circuitThreshold: number;
  circuitProbeMs: number;
  circuitMaxProbeMs: number;
  timeoutMs: number;
  flushIntervalMs: number;
  disableAfterMs: number;
  throttle: ThrottleOptions;
  /**
   * Operational events (operational.ts): when given, the health statement runs in a transaction
   * that also publishes `endpoint.circuit_opened` / `endpoint.circuit_closed` for the breakers it
   * opened or closed (one announced open per `quietMs`, and its close).
   */
  operational?: {
    publish: (tx: Tx, event: OperationalEvent) => Promise<void>;
    quietMs: number;
  };
  /** Releases, after a close, what it could not see (late-holds.ts). */
  late?: LateHolds;
  /** Disables the endpoint in its own transaction; false when it was not enabled. */
  disable: (input: { tenant: string; id: string; reason: string }) => Promise<boolean>;
  on: {
    breaker(action: 'open' | 'close' | 'probe_failed', row: HealthRow): void;
    disabled(info: { tenant: string; endpointId: string; reason: string }): void;
    throttled(info: {
      tenant: string;
      endpointId: string;
      signal: 'throttled' | 'latency';
      cap: number;
      rate: number | null;
    }): void;
  };
}

/** One worker's view of its endpoints' health (which it last saw healthy, and when). */
export class EndpointHealthRecorder {
  readonly #options: HealthOptions;
  /**
   * Endpoints this worker saw healthy (no failure streak) less than a second ago, and when, oldest
   * first (an entry is deleted before it is set again). Older entries serve nothing and are dropped,
   * so the map holds at most a second's endpoints, not every endpoint the worker ever delivered to.
   */
  readonly #healthyAt = new Map<string, number>();
  /** Each endpoint's usual answer time (ms) and how many answers it was learnt from. */
  readonly #latency = new Map<string, { meanMs: number; n: number }>();

  constructor(options: HealthOptions) {
    this.#options = options;
  }

  /**
   * Adaptive throttling's signals in a batch (sql/throttle.ts): a 429/503 answer (`throttled`
   * outcomes), or answers whose mean time is `latencyFactor` times the endpoint's usual one. Nothing
   * is written for a batch without either.
   */
  async #throttle(attempts: Completion[], now: string): Promise<void> {
    const t = this.#options.throttle;
    if (!t.enabled) return;
    const signals = new Map<string, ThrottleSignal>();
    const answered = new Map<string, { sum: number; n: number; tenant: string; id: string }>();
    for (const c of attempts) {
      const k = `${c.tenant}\0${c.endpointId}`;
      if (c.outcome === 'throttled') {
        const s = signals.get(k) ?? {
          tenant: c.tenant,
          id: c.endpointId,
          throttled: true,
          pauseUntil: null,
          at: c.startedAt,
        };
        if (c.pauseUntil !== null && c.pauseUntil > (s.pauseUntil ?? '')) s.pauseUntil = c.pauseUntil;
        if (c.startedAt > s.at) s.at = c.startedAt;
        signals.set(k, s);
      } else if (c.status !== null || c.errorCode === 'timeout') {
        const a = answered.get(k) ?? { sum: 0, n: 0, tenant: c.tenant, id: c.endpointId };
        a.sum += c.durationMs;
        a.n++;
        answered.set(k, a);
      }
    }
    for (const [k, a] of answered) {
      const mean = a.sum / a.n;
      const usual = this.#latency.get(k);
      if (
        usual !== undefined &&
        usual.n >= LATENCY_SAMPLES &&
        mean >= t.latencyFloorMs &&
        mean > t.latencyFactor * usual.meanMs &&
        !signals.has(k)
      ) {
        signals.set(k, { tenant: a.tenant, id: a.id, throttled: false, pauseUntil: null, at: now });
      }
      // The usual time keeps learning (slowly) even while it climbs: an endpoint that stays slower
      // becomes its new usual, and stops lowering its cap.
      const meanMs = usual === undefined ? mean : usual.meanMs + LATENCY_WEIGHT * (mean - usual.meanMs);
      this.#latency.delete(k);
      this.#latency.set(k, { meanMs, n: (usual?.n ?? 0) + a.n });
      if (this.#latency.size > LATENCY_ENDPOINTS) this.#latency.delete(this.#latency.keys().next().value!);
    }
    if (signals.size === 0) return;
    const list = [...signals.values()].sort((a, b) => (a.tenant + a.id < b.tenant + b.id ? -1 : 1));
    const rows = await recordThrottle(this.#options.sql, this.#options.st, {
      signals: list,
      nowIso: now,
      decrease: t.decrease,
      minRate: t.minRate,
      maxCap: t.maxCap,
      recoverMs: t.recoverMs,
      guardMs: THROTTLE_GUARD_MS,
    });
    for (const r of rows) {
      if (!r.decreased) continue;
      this.#options.on.throttled({
        tenant: r.tenant,
        endpointId: r.id,
        signal: r.throttled ? 'throttled' : 'latency',
        cap: r.cap,
        rate: r.rate,
      });
    }
  }

  /** Runs now what it scheduled (late-holds.ts) and waits for it. */
  stop(): Promise<void> {
    return this.#options.late?.stop() ?? Promise.resolve();
  }

  /** Records a batch's attempts (`now`: when the batch was written). */
  async record(attempts: Completion[], now: string): Promise<void> {
    if (attempts.length === 0) return;
    await this.#throttle(attempts, now);
    const per = new Map<string, EndpointBatch>();
    // In start order, so that `failures` counts the failed attempts after the batch's last success.
    for (const c of [...attempts].sort((a, b) => (a.startedAt < b.startedAt ? -1 : 1))) {
      if (c.outcome === 'defer') continue; // never in a written batch; narrows the type
      const effect = healthEffect(c.outcome, c.errorCode);
      if (effect === 'ignored') continue;
      const k = `${c.tenant}\0${c.endpointId}`;
      const h = per.get(k) ?? {
        tenant: c.tenant,
        id: c.endpointId,
        ok: null,
        fail: null,
        gone: false,
        failures: 0,
      };
      if (effect === 'success') {
        h.ok = c.startedAt > (h.ok ?? '') ? c.startedAt : h.ok;
        h.failures = 0;
      } else {
        h.fail = c.startedAt > (h.fail ?? '') ? c.startedAt : h.fail;
        // A deleted event sent nothing, a throttled answer asked for less: neither counts in the
        // breaker's streak (the throttle acts on those); both count for the disable window's clock.
        if (effect === 'failure') h.failures++;
      }
      h.gone ||= c.gone;
      per.set(k, h);
    }
    // Successes only, for an endpoint this worker found healthy less than a second ago: nothing to
    // record (last_success_at is kept to the second), so no statement. Failures always go through.
    const nowMs = Date.parse(now);
    for (const [k, at] of this.#healthyAt) {
      if (nowMs - at < HEALTHY_FOR_MS) break;
      this.#healthyAt.delete(k);
    }
    for (const [k, h] of per) {
      const healthyAt = this.#healthyAt.get(k);
      if (h.fail === null && healthyAt !== undefined && nowMs - healthyAt < HEALTHY_FOR_MS) per.delete(k);
    }
    if (per.size === 0) return;
    const hs = [...per.values()].sort((a, b) => (a.tenant + a.id < b.tenant + b.id ? -1 : 1));
    const o = this.#options;
    const record = (q: Queryable) =>
      recordHealth(q, o.st, {
        endpoints: hs,
        nowIso: now,
        circuitThreshold: o.circuitThreshold,
        circuitProbeMs: o.circuitProbeMs,
        circuitMaxProbeMs: o.circuitMaxProbeMs,
        // The hold horizon: held deliveries are due this long after the probe (released sooner by its
        // success), so a long outage moves them once per horizon, not once per probe.
        holdHorizonMs: HOLD_PROBES * o.circuitMaxProbeMs,
        // Held rows are moved again before a probe whose outcome (its timeout, a flush, a second's
        // margin) could land after they come due.
        probeMarginMs: o.timeoutMs + o.flushIntervalMs + 1000,
      });
    const ops = o.operational;
    const rows = ops
      ? await o.sql.transaction(async (tx) => {
          const rs = await record(tx);
          for (const r of rs)
            if (r.action === 'open' || r.action === 'close') await announce(tx, o.st, r, now, ops);
          return rs;
        })
      : await record(o.sql);
    for (const r of rows) {
      if (r.action === 'open' || r.action === 'probe_failed' || r.action === 'close')
        o.on.breaker(r.action, r);
    }
    // Committed: what the close could not see is released now and later (late-holds.ts).
    const closed = rows.filter((r) => r.action === 'close').map((r) => ({ tenant: r.tenant, id: r.id }));
    await o.late?.closed(closed, nowMs);
    // Healthy now: a success with no failure in this batch, and no failure streak recorded (a row
    // that was not rewritten had nothing to change, so it had no streak either).
    const streak = new Set(rows.filter((r) => r.failing_since !== null).map((r) => `${r.tenant}\0${r.id}`));
    for (const h of hs) {
      const k = `${h.tenant}\0${h.id}`;
      this.#healthyAt.delete(k);
      if (h.ok !== null && h.fail === null && !streak.has(k)) this.#healthyAt.set(k, nowMs);
    }
    const cutoff = Date.parse(now) - o.disableAfterMs;
    for (const r of rows) {
      if (r.status !== 'enabled') continue;
      const reason = r.gone
        ? 'the endpoint answered 410 Gone'
        : r.failing_since && new Date(r.failing_since).getTime() < cutoff
          ? `no successful delivery since ${new Date(r.failing_since).toISOString()}`
          : undefined;
      if (!reason) continue;
      if (await o.disable({ tenant: r.tenant, id: r.id, reason })) {
        o.on.disabled({ tenant: r.tenant, endpointId: r.id, reason });
      }
    }
  }
}

/** The breaker's change as an operational event, when one is due (sql/operational.ts). */
async function announce(
  tx: Tx,
  st: Statements,
  r: HealthRow,
  now: string,
  ops: NonNullable<HealthOptions['operational']>,
): Promise<void> {
  const open = r.action === 'open';
  const row = await circuitNotice(tx, st, {
    tenant: r.tenant,
    id: r.id,
    action: open ? 'open' : 'close',
    nowIso: now,
    quietMs: ops.quietMs,
  });
  if (!row) return;
  await ops.publish(tx, {
    tenant: r.tenant,
    type: open ? 'endpoint.circuit_opened' : 'endpoint.circuit_closed',
    endpointId: r.id,
    data: open
      ? {
          url: row.url,
          openedAt: now,
          consecutiveFailures: row.circuit_failures,
          nextProbeAt: row.circuit_probe_at === null ? null : new Date(row.circuit_probe_at).toISOString(),
          heldDeliveries: r.held,
        }
      : { url: row.url, closedAt: now, releasedDeliveries: r.released },
  });
}
