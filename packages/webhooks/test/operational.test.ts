// Operational events (issue 37): the engine's own events about endpoints (circuit opened / closed,
// backlog crossings, deliveries failed for good, secrets expiring), published in the transaction
// that changes the state, once per change, and never to the endpoint they are about. An injected
// clock: no test sleeps.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { OPERATIONAL_EVENT_TYPES, runMonitor } from '../src/index.js';
import { startReceiver } from '../src/testing.js';
import { useEngine } from './fixture.js';

let clock = Date.parse('2026-06-01T00:00:00Z');
let tenant: string;
const fx = useEngine({
  engine: { now: () => clock },
  worker: {
    random: () => 0,
    concurrency: 1,
    batchSize: 1,
    circuitThreshold: 3,
    circuitProbeMs: 10_000,
    circuitMaxProbeMs: 10_000,
    operationalEvents: true,
    monitorIntervalMs: 3_600_000, // the tests run the monitor themselves
  },
  tenantPrefix: 'op',
});
const worker = fx.worker;

/** The events queued for an endpoint (delivered or not), oldest first: type and data. */
const eventsFor = (endpointId: string) =>
  fx.db.sql
    .query<{ type: string; data: Record<string, unknown> }>(
      `select ev.type, ev.data from "${fx.db.schema}".webhook_deliveries d
         join "${fx.db.schema}".webhook_events ev on ev.tenant = d.tenant and ev.id = d.event_id
        where d.tenant = $1 and d.endpoint_id = $2 order by d.sequence`,
      [tenant, endpointId],
    )
    .then((r) =>
      r.rows.map((x) => ({ type: x.type, data: typeof x.data === 'string' ? JSON.parse(x.data) : x.data })),
    );
const opsFor = async (endpointId: string) =>
  (await eventsFor(endpointId)).filter((e) =>
    (OPERATIONAL_EVENT_TYPES as readonly string[]).includes(e.type),
  );
const publish = (type = 'order.created') =>
  fx.db.sql.transaction((tx) => fx.webhooks.publish(tx, { tenant, type, data: {} }));
const ok = async () => {
  const rx = await startReceiver();
  fx.closeLater(rx);
  return rx;
};

describe('operational events', () => {
  beforeEach(() => {
    tenant = fx.fresh();
  });
  afterEach(fx.cleanup);

  test('a breaker opening and closing is announced once each, never to its own endpoint; a flapping breaker is quiet', async () => {
    let up = false;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(up ? 204 : 500).end());
    fx.closeLater(rx);
    // The failing endpoint subscribes to everything, its own breaker's events included.
    const { endpoint: failing } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: rx.url,
      eventTypes: ['*'],
    });
    const { endpoint: watcher } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: (await ok()).url,
      eventTypes: ['endpoint.circuit_opened', 'endpoint.circuit_closed'],
    });
    for (let i = 0; i < 4; i++) await publish();
    const w = worker();
    const published: string[] = [];
    w.on('operational:published', (e) => published.push(e.type));
    await w.drain();
    let seen = await opsFor(watcher.id);
    assert.deepEqual(
      seen.map((e) => e.type),
      ['endpoint.circuit_opened'],
    );
    assert.equal(seen[0]!.data.endpointId, failing.id);
    assert.equal(seen[0]!.data.consecutiveFailures, 3);
    assert.equal(seen[0]!.data.nextProbeAt, new Date(clock + 10_000).toISOString());
    assert.deepEqual(published, ['endpoint.circuit_opened']);
    // Failed probes change nothing that is announced.
    for (let i = 1; i <= 3; i++) {
      clock += 10_000;
      await w.drain();
    }
    assert.equal((await opsFor(watcher.id)).length, 1, 'failed probes announce nothing');
    up = true;
    clock += 10_000;
    await w.drain();
    seen = await opsFor(watcher.id);
    assert.deepEqual(
      seen.map((e) => e.type),
      ['endpoint.circuit_opened', 'endpoint.circuit_closed'],
    );
    assert.equal(seen[1]!.data.endpointId, failing.id);
    // Flapping: it opens and closes again within the quiet window: nothing more is announced.
    up = false;
    for (let i = 0; i < 3; i++) await publish();
    clock += 1000;
    await w.drain();
    assert.equal(
      (await fx.webhooks.getEndpoint(fx.db.sql, { tenant, id: failing.id }))!.circuit.state,
      'open',
    );
    up = true;
    clock += 10_000;
    await w.drain();
    assert.equal(
      (await fx.webhooks.getEndpoint(fx.db.sql, { tenant, id: failing.id }))!.circuit.state,
      'closed',
    );
    assert.equal(
      (await opsFor(watcher.id)).length,
      2,
      'a flapping breaker is announced once per quiet window',
    );
    // After the quiet window, a new opening is announced again.
    clock += 600_000;
    up = false;
    for (let i = 0; i < 3; i++) await publish();
    await w.drain();
    assert.deepEqual(
      (await opsFor(watcher.id)).map((e) => e.type),
      ['endpoint.circuit_opened', 'endpoint.circuit_closed', 'endpoint.circuit_opened'],
    );
    assert.deepEqual(await opsFor(failing.id), [], 'the endpoint never gets the events about itself');
  });

  test('re-enabling an endpoint disabled with its breaker open announces no orphan close', async () => {
    let up = false;
    const rx = await startReceiver((_r, _n, res) => void res.writeHead(up ? 204 : 500).end());
    fx.closeLater(rx);
    const { endpoint: failing } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: rx.url,
      eventTypes: ['order.created'],
    });
    const { endpoint: watcher } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: (await ok()).url,
      eventTypes: ['endpoint.circuit_opened', 'endpoint.circuit_closed'],
    });
    for (let i = 0; i < 3; i++) await publish();
    const w = worker();
    await w.drain();
    assert.deepEqual(
      (await opsFor(watcher.id)).map((e) => e.type),
      ['endpoint.circuit_opened'],
    );
    await fx.db.sql.transaction((tx) =>
      fx.webhooks.disableEndpoint(tx, { tenant, id: failing.id, reason: 'test' }),
    );
    await fx.webhooks.enableEndpoint(fx.db.sql, { tenant, id: failing.id });
    // It opens again within the quiet window (not announced), then closes: no close without its open.
    for (let i = 0; i < 3; i++) await publish();
    clock += 1000;
    await w.drain();
    up = true;
    clock += 10_000;
    await w.drain();
    assert.equal(
      (await fx.webhooks.getEndpoint(fx.db.sql, { tenant, id: failing.id }))!.circuit.state,
      'closed',
    );
    assert.deepEqual(
      (await opsFor(watcher.id)).map((e) => e.type),
      ['endpoint.circuit_opened'],
    );
  });

  test('delivery.failed once per delivery failed for good; not to its endpoint; no event about an operational event failing (no ping-pong)', async () => {
    const down = await startReceiver((_r, _n, res) => void res.writeHead(500).end());
    fx.closeLater(down);
    // Two failing endpoints, each subscribed to everything (the other's failures included).
    const b = (
      await fx.webhooks.createEndpoint(fx.db.sql, {
        tenant,
        url: down.url,
        eventTypes: ['*'],
        retrySchedule: [1],
      })
    ).endpoint;
    const c = (
      await fx.webhooks.createEndpoint(fx.db.sql, {
        tenant,
        url: `${down.url}?c`,
        eventTypes: ['delivery.failed'],
        retrySchedule: [1],
      })
    ).endpoint;
    const watcher = (
      await fx.webhooks.createEndpoint(fx.db.sql, {
        tenant,
        url: (await ok()).url,
        eventTypes: ['delivery.failed'],
      })
    ).endpoint;
    const { id: eventId } = await publish();
    const w = worker({ circuitThreshold: 100 });
    for (let i = 0; i < 6; i++) {
      await w.drain();
      clock += 1_500;
    }
    const toWatcher = await opsFor(watcher.id);
    assert.deepEqual(
      toWatcher.map((e) => [
        e.type,
        e.data.endpointId,
        e.data.eventId,
        e.data.eventType,
        e.data.attempts,
        e.data.lastError,
      ]),
      [['delivery.failed', b.id, eventId, 'order.created', 2, 'http_500']],
    );
    assert.deepEqual(await opsFor(b.id), [], 'never to the endpoint it is about');
    // c got the event about b, failed it for good, and nothing was published about that.
    assert.deepEqual(
      (await opsFor(c.id)).map((e) => e.data.endpointId),
      [b.id],
    );
    const failed = await fx.db.sql.query<{ n: number }>(
      `select count(*)::int as n from "${fx.db.schema}".webhook_deliveries where tenant = $1 and endpoint_id = $2 and status = 'failed'`,
      [tenant, c.id],
    );
    assert.equal(failed.rows[0]!.n, 1, "c's delivery of the operational event failed for good");
    const total = await fx.db.sql.query<{ n: number }>(
      `select count(*)::int as n from "${fx.db.schema}".webhook_events where tenant = $1 and type = 'delivery.failed'`,
      [tenant],
    );
    assert.equal(total.rows[0]!.n, 1, 'one delivery.failed in all');
  });

  test('a backlog crossing its threshold is announced once, cleared once at half, with hysteresis', async () => {
    const rx = await ok();
    const { endpoint: slow } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: rx.url,
      eventTypes: ['order.created', 'endpoint.backlog_exceeded', 'endpoint.backlog_cleared'],
    });
    const { endpoint: watcher } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: (await ok()).url,
      eventTypes: ['endpoint.backlog_exceeded', 'endpoint.backlog_cleared'],
    });
    const monitor = () => runMonitor(fx.webhooks, { backlogThreshold: 6 });
    for (let i = 0; i < 5; i++) await publish();
    assert.deepEqual((await monitor()).published, [], 'under the threshold');
    await publish();
    const first = await monitor();
    assert.deepEqual(
      first.published.map((e) => [e.type, e.endpointId]),
      [['endpoint.backlog_exceeded', slow.id]],
    );
    assert.equal(first.published[0]!.data.pendingDeliveries, 6);
    assert.deepEqual((await monitor()).published, [], 'announced once');
    // Down to 4 (above half): still exceeded, nothing announced; up again: nothing either.
    const pending = () =>
      fx.db.sql.query(
        `update "${fx.db.schema}".webhook_deliveries set status = 'delivered' where id in (
           select id from "${fx.db.schema}".webhook_deliveries where tenant = $1 and endpoint_id = $2 and status = 'pending'
            order by sequence limit $3)`,
        [tenant, slow.id, 2],
      );
    await pending();
    assert.deepEqual((await monitor()).published, [], 'hysteresis: 4 is above the low-water mark');
    await publish();
    await publish();
    assert.deepEqual((await monitor()).published, [], 'still the same crossing');
    await pending();
    await pending();
    await pending();
    const cleared = await monitor();
    assert.deepEqual(
      cleared.published.map((e) => [e.type, e.endpointId, e.data.pendingDeliveries]),
      [['endpoint.backlog_cleared', slow.id, 0]],
    );
    assert.deepEqual(
      (await opsFor(watcher.id)).map((e) => e.type),
      ['endpoint.backlog_exceeded', 'endpoint.backlog_cleared'],
    );
    assert.deepEqual(await opsFor(slow.id), [], 'never to the endpoint it is about');
  });

  test("a rotated-out secret's expiry is announced once, an hour ahead; a new rotation announces its own", async () => {
    const { endpoint } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: (await ok()).url,
      eventTypes: ['*'],
    });
    const { endpoint: watcher } = await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: (await ok()).url,
      eventTypes: ['endpoint.secret_expiring'],
    });
    const monitor = () => runMonitor(fx.webhooks, { secretExpiryNoticeMs: 3_600_000 });
    assert.deepEqual((await monitor()).published, [], 'one secret: nothing expires');
    await fx.webhooks.rotateSecret(fx.db.sql, { tenant, id: endpoint.id, overlapMs: 2 * 3_600_000 });
    assert.deepEqual((await monitor()).published, [], 'two hours ahead: not yet');
    clock += 3_600_000 + 1000;
    const r = await monitor();
    assert.deepEqual(
      r.published.map((e) => [e.type, e.endpointId, e.data.expiresAt]),
      [['endpoint.secret_expiring', endpoint.id, new Date(clock - 1000 + 3_600_000).toISOString()]],
    );
    assert.deepEqual((await monitor()).published, [], 'announced once');
    await fx.webhooks.rotateSecret(fx.db.sql, { tenant, id: endpoint.id, overlapMs: 1_800_000 });
    assert.equal((await monitor()).published.length, 1, 'the next rotation announces its own expiry');
    assert.equal((await opsFor(watcher.id)).length, 2);
    assert.deepEqual(
      (await opsFor(endpoint.id)).filter((e) => e.type === 'endpoint.secret_expiring'),
      [],
    );
  });
});
