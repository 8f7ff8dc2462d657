// A circuit breaker's close must release every delivery held behind its probe, also those it could
// not see (PostgreSQL only: two connections at once):
// - what another worker's hold moved while the close waited for the endpoint's lock (the close read
//   the deliveries as they were before it): they waited up to the hold horizon, an hour by default,
//   with the endpoint healthy again, as the chaos test of workers.test.ts once saw;
// - what a publish held, in a transaction open across the close.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { needsPostgres } from '@surety/db/testing';
import { EndpointHealthRecorder } from '../src/delivery/health.js';
import { LateHolds } from '../src/delivery/late-holds.js';
import type { Completion } from '../src/delivery/outcome-writer.js';
import { recordHealth } from '../src/sql/health.js';
import { startReceiver, webhooksInternals } from '../src/testing.js';
import { useEngine } from './fixture.js';
import { recorderOptions } from './health-recorder.js';

const fx = useEngine({ tenantPrefix: 'brace', database: { max: 4 } });
const iso = (ms: number) => new Date(ms).toISOString();
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => Promise<boolean>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; !(await done()); await pause(25))
    assert.ok(Date.now() < end, `${what} within ${ms} ms`);
}

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
    // The breaker is open (its probe 10 minutes away); both deliveries are due, as deliveries whose
    // failed attempts were in flight when it opened are: the next hold moves them behind the probe.
    // Attempted and answered, so only the release right after the close can be what frees them (the
    // later ones look for what publishes held: never attempted).
    await db.sql.query(
      `update ${fx.table('webhook_endpoints')} set circuit_failures = 3, circuit_opened_at = $3,
              circuit_probe_at = $4, circuit_probes = 0, circuit_hold_until = $5, failing_since = $3,
              last_failure_at = $3
        where tenant = $1 and id = $2`,
      [tenant, endpoint.id, iso(now - 60_000), iso(now + 600_000), iso(now + 3_600_000)],
    );
    await db.sql.query(
      `update ${fx.table('webhook_deliveries')} set next_attempt_at = $3, attempts = 1, last_status = 500,
              last_error = 'http_error'
        where tenant = $1 and endpoint_id = $2`,
      [tenant, endpoint.id, iso(now - 1000)],
    );
    const settings = { circuitThreshold: 3, circuitProbeMs: 10_000, circuitMaxProbeMs: 300_000 };
    // Worker A: the recorder as a worker wires it, with its releases after a close.
    const errors: Error[] = [];
    const breaker: string[] = [];
    const late = new LateHolds({ sql: db.sql, st, now: () => Date.now(), error: (e) => errors.push(e) });
    const a = new EndpointHealthRecorder(
      recorderOptions({
        sql: db.sql,
        st,
        ...settings,
        late,
        on: { breaker: (action) => breaker.push(action), disabled() {}, throttled() {} },
      }),
    );
    const success: Completion = {
      id: 'dlv_probe',
      tenant,
      endpointId: endpoint.id,
      outcome: 'delivered',
      nextAt: null,
      status: 204,
      errorCode: null,
      errorMessage: null,
      excerpt: null,
      attempt: 1,
      startedAt: iso(now),
      durationMs: 5,
      gone: false,
      pauseUntil: null,
      eventId: 'evt_probe',
      eventType: 'order.created',
    };

    // Worker B records a failure (the breaker holds) and has not committed when worker A records
    // the probe's success (the breaker closes): A waits for the endpoint's lock, held by B.
    let closing: Promise<void> | undefined;
    await db.sql.transaction(async (tx) => {
      const held = await recordHealth(tx, st, {
        endpoints: [{ tenant, id: endpoint.id, ok: null, fail: iso(now - 10), gone: false, failures: 1 }],
        nowIso: iso(now),
        ...settings,
        holdHorizonMs: 3_600_000,
        probeMarginMs: 3_000,
      });
      assert.equal(held[0]?.action, 'hold');
      assert.equal(held[0]?.held, 2, 'both deliveries moved behind the probe');
      const b = (await tx.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      closing = a.record([success], iso(now));
      closing.catch(() => {}); // awaited below; a failure here must not be an unhandled rejection
      await until(
        "A's close waits for B's lock",
        async () =>
          (
            await db.sql.query<{ n: number }>(
              'select count(*)::int as n from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))',
              [b],
            )
          ).rows[0]!.n > 0,
        30_000,
      );
    });
    await closing;
    await late.stop();
    assert.deepEqual(breaker, ['close']);
    assert.deepEqual(errors, []);
    const rows = await db.sql.query<{ id: string; next_attempt_at: Date }>(
      `select id, next_attempt_at from ${fx.table('webhook_deliveries')} where tenant = $1 and endpoint_id = $2`,
      [tenant, endpoint.id],
    );
    assert.equal(rows.rows.length, 2);
    for (const r of rows.rows)
      assert.ok(
        r.next_attempt_at.getTime() <= Date.now(),
        `delivery ${r.id} still held until ${r.next_attempt_at.toISOString()} after the breaker closed`,
      );
  });

  for (const by of ['the worker, a second after the close', 'the worker as it stops'] as const) {
    test(`a delivery published in a transaction open across the close is released by ${by}`, async () => {
      const { db, webhooks, tenant } = fx;
      // Three failures open the breaker; the probe (the fourth request) is answered once the late
      // transaction has published, so the close comes after that publish.
      let published!: () => void;
      const inTx = new Promise<void>((r) => {
        published = r;
      });
      let n = 0;
      const rx = fx.closeLater(
        await startReceiver(async (_r, _n, res) => {
          if (++n <= 3) return void res.writeHead(500).end();
          await inTx;
          res.writeHead(204).end();
        }),
      );
      const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      const breakerOpen = async () =>
        (
          await db.sql.query<{ open: boolean }>(
            `select circuit_opened_at is not null as open from ${fx.table('webhook_endpoints')} where tenant = $1 and id = $2`,
            [tenant, endpoint.id],
          )
        ).rows[0]!.open;
      await db.sql.transaction(async (tx) => {
        for (let i = 0; i < 3; i++)
          await webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
      });
      const worker = fx.worker({
        circuitThreshold: 3,
        circuitProbeMs: 200,
        concurrency: 1,
        batchSize: 1,
        pollIntervalMs: 25,
      });
      await worker.start();
      await until('the breaker opened', breakerOpen, 30_000);
      let commit!: () => void;
      const committed = new Promise<void>((r) => {
        commit = r;
      });
      const late = db.sql.transaction(async (tx) => {
        const event = await webhooks.publish(tx, { tenant, type: 'order.created', data: { late: true } });
        const held = await tx.query<{ held: boolean }>(
          `select next_attempt_at > now() + interval '10 minutes' as held from ${fx.table('webhook_deliveries')}
            where tenant = $1 and event_id = $2`,
          [tenant, event.id],
        );
        assert.deepEqual(held.rows, [{ held: true }], 'published behind the open breaker');
        published();
        await committed;
        return event;
      });
      await until('the breaker closed', async () => !(await breakerOpen()), 30_000);
      commit();
      const event = await late;
      const due = async () =>
        (
          await db.sql.query<{ due: boolean }>(
            `select next_attempt_at <= now() as due from ${fx.table('webhook_deliveries')} where tenant = $1 and event_id = $2`,
            [tenant, event.id],
          )
        ).rows[0]!.due;
      if (by === 'the worker as it stops') {
        await worker.stop();
        assert.ok(await due(), 'released as the worker stopped (its releases were a second away)');
      } else {
        await until('the late delivery released (not held until the hold horizon, an hour)', due, 15_000);
      }
    });
  }
});
