// The circuit breaker of an endpoint (issue 15, D3: retry at one layer, break elsewhere). After N
// consecutive failed attempts its deliveries wait behind one probe instead of each hammering the
// receiver on its own schedule; held deliveries spend no attempts; a failed probe waits longer
// (bounded exponential); a successful one closes the breaker and every held delivery goes out. The
// auto-disable window still counts from the first failure. An injected clock: no test sleeps.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, type DeliveryWorkerOptions, parseAllowList, Webhooks } from '../src/index.js';
import { startReceiver } from '../src/testing.js';

let db: TestDatabase;
let clock = Date.parse('2026-06-01T00:00:00Z');
let webhooks: Webhooks;
let tenantN = 0;
let tenant: string;
const receivers: { close(): Promise<void> }[] = [];
const workers: DeliveryWorker[] = [];
const THRESHOLD = 3;
const PROBE_MS = 10_000;
const MAX_PROBE_MS = 40_000;

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  await webhooks.migrate();
});
after(() => db.close());

function worker(options: Partial<DeliveryWorkerOptions> = {}) {
  // One attempt at a time, one row per claim: the breaker opens after exactly THRESHOLD attempts.
  const w = new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    concurrency: 1,
    batchSize: 1,
    // The default schedule (5 s, 5 min, 30 min, …): a probe is due at the probe time, not at its own next retry.
    circuitThreshold: THRESHOLD,
    circuitProbeMs: PROBE_MS,
    circuitMaxProbeMs: MAX_PROBE_MS,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    ...options,
  });
  workers.push(w);
  return w;
}

const deliveries = (endpointId: string) =>
  db.sql
    .query<{ id: string; status: string; attempts: number; next_attempt_at: Date }>(
      `select id, status, attempts, next_attempt_at from "${db.schema}".webhook_deliveries
        where tenant = $1 and endpoint_id = $2 order by sequence`,
      [tenant, endpointId],
    )
    .then((r) => r.rows);
const publish = () =>
  db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.created', data: {} }));
const iso = (ms: number) => new Date(ms).toISOString();

describe('circuit breaker per endpoint', () => {
  beforeEach(() => {
    tenant = `cb${++tenantN}`;
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    await db.sql.query(
      `update "${db.schema}".webhook_deliveries set status = 'failed' where status = 'pending'`,
    );
  });

  test('opens after N failures, holds the rest behind one probe, backs off, closes on success and delivers everything', async () => {
    let healthy = false;
    const delivered = new Map<string, number>();
    const rx = await startReceiver((r, _n, res) => {
      if (!healthy) return void res.writeHead(500).end('down');
      const id = String(r.headers['webhook-id']);
      delivered.set(id, (delivered.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
    receivers.push(rx);
    const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    for (let i = 0; i < 8; i++) await publish();
    const w = worker();
    const opened: unknown[] = [];
    const closed: unknown[] = [];
    w.on('circuit:opened', (e) => opened.push(e));
    w.on('circuit:closed', (e) => closed.push(e));
    const start = clock;
    const attemptsSum = async () => (await deliveries(endpoint.id)).reduce((n, d) => n + d.attempts, 0);

    await w.drain();
    assert.equal(rx.received.length, THRESHOLD, 'the breaker opened after exactly N attempts');
    assert.deepEqual(opened, [{ tenant, endpointId: endpoint.id, held: 8 }], 'all 8 pending moved');
    let ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    assert.deepEqual(ep.circuit, {
      state: 'open',
      consecutiveFailures: THRESHOLD,
      openedAt: iso(start),
      nextProbeAt: iso(start + PROBE_MS),
    });
    assert.equal(ep.failingSince, iso(start));
    // Every pending delivery waits for the probe: one at the probe time, the others after it.
    const held = await deliveries(endpoint.id);
    assert.equal(held.filter((d) => d.next_attempt_at.getTime() === start + PROBE_MS).length, 1);
    for (const d of held)
      assert.ok(d.next_attempt_at.getTime() >= start + PROBE_MS, `${d.id} is due before the probe`);

    // An event published while the breaker is open waits too.
    await publish();
    // The failed deliveries' own retries (5 s) come and go: nothing is sent before the probe.
    clock = start + 5_000;
    await w.drain();
    assert.equal(rx.received.length, THRESHOLD);

    // Probes: exactly one request each, the next one twice as late, up to the maximum.
    let probeAt = start + PROBE_MS;
    for (const [n, delay] of [
      [1, 2 * PROBE_MS],
      [2, 4 * PROBE_MS],
      [3, MAX_PROBE_MS],
    ] as const) {
      clock = probeAt;
      const before = await attemptsSum();
      const dueBefore = new Map(
        (await deliveries(endpoint.id)).map((d) => [d.id, d.next_attempt_at.getTime()]),
      );
      await w.drain();
      assert.equal(rx.received.length, THRESHOLD + n, `probe ${n} is a single request`);
      assert.equal(await attemptsSum(), before + 1, 'held deliveries spent no attempt');
      // Only the failed probe and the next probe's row moved: the held rows are not rewritten.
      const moved = (await deliveries(endpoint.id)).filter(
        (d) => d.next_attempt_at.getTime() !== dueBefore.get(d.id),
      );
      assert.ok(moved.length <= 2, `${moved.length} rows moved by a failed probe`);
      // Exactly one delivery is due at the next probe, whatever its own schedule says.
      const due = (await deliveries(endpoint.id)).filter((d) => d.next_attempt_at.getTime() <= clock + delay);
      assert.equal(due.length, 1, 'one probe');
      ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
      probeAt = clock + delay;
      assert.equal(ep.circuit.state, 'open');
      assert.equal(ep.circuit.nextProbeAt, iso(probeAt), `probe ${n + 1} after ${delay} ms`);
      assert.equal(ep.circuit.openedAt, iso(start));
      assert.equal(ep.failingSince, iso(start), 'the auto-disable window counts from the first failure');
      // just before the next probe: still nothing
      clock = probeAt - 1;
      await w.drain();
      assert.equal(rx.received.length, THRESHOLD + n);
    }
    clock = probeAt;
    ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    assert.equal(ep.circuit.state, 'half_open', 'half open once the probe is due');
    const attemptsBeforeRecovery = await attemptsSum();

    // The receiver recovers: the probe succeeds, the breaker closes, every held delivery goes out.
    healthy = true;
    clock = probeAt;
    await w.drain();
    assert.equal(closed.length, 1);
    const after = await deliveries(endpoint.id);
    assert.equal(after.length, 9);
    assert.deepEqual(
      after.map((d) => d.status),
      after.map(() => 'delivered'),
    );
    assert.equal(delivered.size, 9, 'each event delivered');
    assert.ok(
      [...delivered.values()].every((n) => n === 1),
      'and once',
    );
    assert.equal(await attemptsSum(), attemptsBeforeRecovery + 9, 'one attempt each to deliver them');
    ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    assert.deepEqual(ep.circuit, {
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      nextProbeAt: null,
    });
    assert.equal(ep.failingSince, null);
  });

  test('two endpoints opening in one batch: each holds its own deliveries and reports its own count', async () => {
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(500).end());
    receivers.push(rx);
    const a = (await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['a.x'] })).endpoint;
    const b = (await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['b.x'] })).endpoint;
    for (let i = 0; i < THRESHOLD; i++) {
      await db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'a.x', data: {} }));
    }
    for (let i = 0; i < THRESHOLD + 2; i++) {
      await db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'b.x', data: {} }));
    }
    // Every outcome in one write (drain's), not split by the flush timer when attempts end apart
    // on a loaded machine: the test is about two endpoints opening in the same batch.
    const w = worker({ batchSize: 100, concurrency: 20, flushIntervalMs: 600_000 });
    const opened: { endpointId: string; held: number }[] = [];
    w.on('circuit:opened', (e) => opened.push(e));
    await w.drain();
    assert.equal(rx.received.length, 2 * THRESHOLD + 2, 'one batch: every delivery was sent once');
    // Outcomes may reach the database in two flushes: rows still in flight at the first are held by
    // the second. Each event counts that endpoint's rows only.
    assert.deepEqual(opened.map((e) => e.endpointId).sort(), [a.id, b.id].sort());
    assert.ok(opened.find((e) => e.endpointId === a.id)!.held <= THRESHOLD);
    assert.ok(opened.find((e) => e.endpointId === b.id)!.held <= THRESHOLD + 2);
    for (const ep of [a, b]) {
      const e = (await webhooks.getEndpoint(db.sql, { tenant, id: ep.id }))!;
      assert.equal(e.circuit.state, 'open');
      for (const d of await deliveries(ep.id)) {
        assert.ok(d.next_attempt_at.getTime() >= Date.parse(e.circuit.nextProbeAt!), 'held behind the probe');
      }
    }
  });

  test('extreme settings and a long outage never make the health statement fail', async () => {
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(500).end());
    receivers.push(rx);
    const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    // A 5-day outage probed every 5 minutes is 1,440 failed probes: 2^1441 overflows a float8.
    await db.sql.query(
      `update "${db.schema}".webhook_endpoints set circuit_failures = 5000, circuit_opened_at = $2,
              circuit_probe_at = $2, circuit_probes = 5000, circuit_hold_until = $3 where id = $1`,
      [endpoint.id, iso(clock), iso(clock + 3_600_000)],
    );
    await publish();
    for (const w of [
      worker(),
      worker({
        circuitThreshold: Number.MAX_SAFE_INTEGER,
        circuitProbeMs: 30 * 86_400_000,
        circuitMaxProbeMs: 30 * 86_400_000,
      }),
    ]) {
      const errors: Error[] = [];
      w.on('worker:error', (e) => errors.push(e));
      await db.sql.query(
        `update "${db.schema}".webhook_deliveries set next_attempt_at = $2 where endpoint_id = $1`,
        [endpoint.id, iso(clock)],
      );
      await db.sql.query(`update "${db.schema}".webhook_endpoints set circuit_probe_at = $2 where id = $1`, [
        endpoint.id,
        iso(clock),
      ]);
      await w.drain();
      assert.deepEqual(errors, []);
    }
    const ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    assert.equal(ep.circuit.state, 'open');
    assert.equal(ep.circuit.nextProbeAt, iso(clock + 30 * 86_400_000), 'capped at the maximum');
  });

  test('a success before N resets the count; the endpoint is still disabled when its window passes while open', async () => {
    let answer = 500;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(answer).end());
    receivers.push(rx);
    const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    const w = worker({ disableAfterMs: 60_000 });
    const start = clock;
    for (let i = 0; i < THRESHOLD - 1; i++) await publish();
    await w.drain();
    assert.equal(
      (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!.circuit.consecutiveFailures,
      THRESHOLD - 1,
    );
    answer = 200;
    await publish();
    clock = start + 5_000; // the two failed ones are due again too
    await w.drain();
    let ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    assert.equal(ep.circuit.state, 'closed');
    assert.equal(ep.circuit.consecutiveFailures, 0);

    answer = 500;
    const failedAt = clock;
    for (let i = 0; i < THRESHOLD + 2; i++) await publish();
    await w.drain();
    ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    assert.equal(ep.circuit.state, 'open');
    assert.equal(ep.failingSince, iso(failedAt));
    // probes until the window (60 s from the first failure) has passed: the failed probe disables it
    for (let i = 0; i < 10 && ep.status === 'enabled'; i++) {
      clock = Date.parse(ep.circuit.nextProbeAt!);
      await w.drain();
      ep = (await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!;
    }
    assert.equal(ep.status, 'disabled');
    assert.match(ep.disabledReason ?? '', new RegExp(`no successful delivery since ${iso(failedAt)}`));
    assert.ok(clock - failedAt > 60_000 && clock - failedAt <= 60_000 + MAX_PROBE_MS);
    // Re-enabled: a fresh start, the breaker closed; recovered deliveries go out at once.
    answer = 200;
    ep = await webhooks.enableEndpoint(db.sql, { tenant, id: endpoint.id });
    assert.deepEqual(ep.circuit, {
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      nextProbeAt: null,
    });
    assert.ok(
      (await webhooks.recoverEndpoint(db.sql, { tenant, endpointId: endpoint.id, since: new Date(0) })) > 0,
    );
    await w.drain();
    assert.ok((await deliveries(endpoint.id)).every((d) => d.status === 'delivered'));
  });
});
