// Two workers recording the same endpoint's health at once (PostgreSQL only: two connections). A
// breaker's close must release every delivery held behind its probe, including those another
// worker's hold moved while the close waited for the endpoint's lock: a close that read the
// deliveries as they were before that hold left them waiting up to the hold horizon (an hour by
// default) with the endpoint healthy again, as the chaos test of workers.test.ts once saw.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { needsPostgres } from '@surety/db/testing';
import { recordHealth } from '../src/sql/health.js';
import { startReceiver, webhooksInternals } from '../src/testing.js';
import { useEngine } from './fixture.js';

const fx = useEngine({ tenantPrefix: 'brace', database: { max: 4 } });

const SETTINGS = {
  circuitThreshold: 3,
  circuitProbeMs: 10_000,
  circuitMaxProbeMs: 40_000,
  holdHorizonMs: 3_600_000,
  probeMarginMs: 3_000,
};

describe('the breaker between two workers', { skip: needsPostgres }, () => {
  beforeEach(() => fx.fresh());
  afterEach(() => fx.cleanup());

  test("a close that waited for another worker's hold releases what that hold moved", async () => {
    const { db, webhooks, tenant } = fx;
    const st = webhooksInternals(webhooks).st;
    const { endpoint } = await webhooks.createEndpoint(db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/',
      eventTypes: ['*'],
    });
    await db.sql.transaction(async (tx) => {
      for (let i = 0; i < 2; i++) await webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    // The breaker is open (its probe 10 minutes away); both deliveries are due, as deliveries whose
    // failed attempts were in flight when it opened are: the next hold moves them behind the probe.
    await db.sql.query(
      `update ${fx.table('webhook_endpoints')} set circuit_failures = 3, circuit_opened_at = $3,
              circuit_probe_at = $4, circuit_probes = 0, circuit_hold_until = $5, failing_since = $3,
              last_failure_at = $3
        where tenant = $1 and id = $2`,
      [tenant, endpoint.id, iso(now - 60_000), iso(now + 600_000), iso(now + 3_600_000)],
    );
    await db.sql.query(
      `update ${fx.table('webhook_deliveries')} set next_attempt_at = $3 where tenant = $1 and endpoint_id = $2`,
      [tenant, endpoint.id, iso(now - 1000)],
    );
    const batch = (ok: boolean) => ({
      tenant,
      id: endpoint.id,
      ok: ok ? iso(now) : null,
      fail: ok ? null : iso(now - 10),
      gone: false,
      failures: ok ? 0 : 1,
    });

    // Worker B records a failure (the breaker holds) and has not committed when worker A records
    // the probe's success (the breaker closes): A waits for the endpoint's lock.
    let closing: Promise<Awaited<ReturnType<typeof recordHealth>>> | undefined;
    await db.sql.transaction(async (tx) => {
      const held = await recordHealth(tx, st, { endpoints: [batch(false)], nowIso: iso(now), ...SETTINGS });
      assert.equal(held[0]?.action, 'hold');
      assert.equal(held[0]?.held, 2, 'both deliveries moved behind the probe');
      closing = db.sql.transaction((a) =>
        recordHealth(a, st, { endpoints: [batch(true)], nowIso: iso(now), ...SETTINGS }),
      );
      // Until A's statement is waiting for B's lock (bounded).
      for (let i = 0; ; i++) {
        const waiting = await db.sql.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (waiting.rows[0]!.n > 0) break;
        assert.ok(i < 200, 'the close never waited for the lock');
        await new Promise((r) => setTimeout(r, 25));
      }
    });
    const closed = await closing!;
    assert.equal(closed[0]?.action, 'close');
    const rows = await db.sql.query<{ id: string; next_attempt_at: Date }>(
      `select id, next_attempt_at from ${fx.table('webhook_deliveries')} where tenant = $1 and endpoint_id = $2`,
      [tenant, endpoint.id],
    );
    for (const r of rows.rows)
      assert.ok(
        r.next_attempt_at.getTime() <= now,
        `delivery ${r.id} still held until ${r.next_attempt_at.toISOString()} after the breaker closed`,
      );
  });

  test("a delivery published in a transaction open across the breaker's close is released when it commits", async () => {
    const { db, webhooks, tenant } = fx;
    let n = 0;
    const rx = fx.closeLater(
      await startReceiver((_r, _n, res) => void res.writeHead(++n <= 3 ? 500 : 204).end()),
    );
    const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    const breaker = async () =>
      (
        await db.sql.query<{ open: boolean }>(
          `select circuit_opened_at is not null as open from ${fx.table('webhook_endpoints')} where tenant = $1 and id = $2`,
          [tenant, endpoint.id],
        )
      ).rows[0]!.open;
    const until = async (what: string, done: () => Promise<boolean>, ms: number) => {
      for (const end = Date.now() + ms; !(await done()); await new Promise((r) => setTimeout(r, 25)))
        assert.ok(Date.now() < end, `${what} within ${ms} ms`);
    };
    await db.sql.transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    // Three failures open the breaker; its probe is due 400 ms later and succeeds.
    await fx
      .worker({ circuitThreshold: 3, circuitProbeMs: 400, concurrency: 1, batchSize: 1, pollIntervalMs: 25 })
      .start();
    await until('the breaker opened', breaker, 15_000);
    // A transaction publishes while it is open (its delivery held behind the probe) and commits only
    // after the breaker closed: the close could not see it.
    let commit!: () => void;
    const committed = new Promise<void>((r) => {
      commit = r;
    });
    let published!: () => void;
    const inTx = new Promise<void>((r) => {
      published = r;
    });
    const late = db.sql.transaction(async (tx) => {
      const event = await webhooks.publish(tx, { tenant, type: 'order.created', data: { late: true } });
      published();
      await committed;
      return event;
    });
    await inTx;
    await until('the breaker closed', async () => !(await breaker()), 15_000);
    commit();
    const event = await late;
    const delivered = async () =>
      (
        await db.sql.query<{ status: string }>(
          `select status from ${fx.table('webhook_deliveries')} where tenant = $1 and event_id = $2`,
          [tenant, event.id],
        )
      ).rows[0]?.status === 'delivered';
    await until(
      'the late delivery was delivered (not held until the hold horizon, an hour)',
      delivered,
      10_000,
    );
  });
});
