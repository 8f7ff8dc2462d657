// A claim whose answer is lost: the claim's transaction commits (its rows leased to this worker,
// their attempts counted), then the connection drops before the worker hears of it, as when the
// primary crashes between its synchronous standby's flush and the reply (the failover test saw 5
// events wait out the 60 s lease). The worker holds none of those rows, so nobody sends them until
// the lease passes. It gives them back as soon as the database answers again: sent within seconds,
// their attempts not counted twice, and nothing another claim holds is touched. The fault is injected
// at the client boundary: a real COMMIT, then the error a dropped connection raises.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Sql } from '@surety/db';
import type { DeliveryWorkerOptions } from '../src/index.js';
import { startReceiver } from '../src/testing.js';
import { useEngine } from './fixture.js';

const fx = useEngine({ tenantPrefix: 'lost' });

/**
 * fx's database, where the claims after the first `skip` commit and then fail as a dropped connection
 * does, `claims` of them.
 */
function lossy(sql: Sql, lose: { skip: number; claims: number; seen: number }): Sql {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop !== 'transaction') return Reflect.get(target, prop, receiver);
      return async (fn: Parameters<Sql['transaction']>[0], options?: { first?: string }) => {
        const result = await target.transaction(fn, options);
        if (!options?.first?.includes('pg_advisory_xact_lock')) return result;
        if (lose.skip > 0) lose.skip--;
        else if (lose.claims > 0) {
          lose.claims--;
          lose.seen++;
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        }
        return result;
      };
    },
  }) as Sql;
}

/**
 * A worker (60 s leases, polling every 50 ms; `options` over them) on an engine over fx's database
 * whose claim after the first `skip` commits and then fails as a dropped connection does; its errors'
 * messages kept.
 */
function lossyWorker(skip = 0, options: Partial<DeliveryWorkerOptions> = {}) {
  const lose = { skip, claims: 1, seen: 0 };
  const worker = fx.workerOn(lossy(fx.db.sql, lose), { pollIntervalMs: 50, leaseMs: 60_000, ...options });
  const errors: string[] = [];
  worker.on('worker:error', (e) => errors.push(e.message));
  return { worker, lose, errors };
}

describe('a claim whose answer is lost', () => {
  beforeEach(fx.fresh);
  afterEach(fx.cleanup);

  test('its rows are given back and sent within seconds, not after the lease; attempts counted once', async () => {
    const rx = fx.closeLater(await startReceiver());
    const tenant = fx.tenant;
    await fx.webhooks.createEndpoint(fx.db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    const ids: string[] = [];
    await fx.db.sql.transaction(async (tx) => {
      for (let i = 0; i < 5; i++)
        ids.push((await fx.webhooks.publish(tx, { tenant, type: 'order.created', data: { i } })).id);
    });
    const { worker, lose, errors } = lossyWorker();
    await worker.start();
    try {
      await rx.waitFor(5, 10_000);
    } finally {
      await worker.stop();
    }
    assert.equal(lose.seen, 1, 'the first claim committed and its answer was lost');
    assert.ok(errors.includes('Connection terminated unexpectedly'), 'the lost answer was reported');
    assert.deepEqual([...new Set(rx.received.map((r) => r.headers['webhook-id']))].sort(), [...ids].sort());
    const { rows } = await fx.db.sql.query<{ status: string; attempts: number; locked_by: string | null }>(
      `select status, attempts, locked_by from ${fx.table('webhook_deliveries')} where tenant = $1`,
      [tenant],
    );
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts, r.locked_by]),
      ids.map(() => ['delivered', 1, null]),
      'each delivered on one counted attempt',
    );
  });

  test("giving back touches only the lost claim's rows: another worker's leased rows stay leased", async () => {
    const rx = fx.closeLater(await startReceiver());
    const tenant = fx.tenant;
    await fx.webhooks.createEndpoint(fx.db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    await fx.db.sql.transaction(async (tx) => {
      for (let i = 0; i < 4; i++)
        await fx.webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    const D = fx.table('webhook_deliveries');
    // Two rows leased by another worker: neither may come back before its lease ends.
    const until = new Date(Date.now() + 60_000).toISOString();
    await fx.db.sql.query(
      `update ${D} set lease_until = $2, locked_by = 'another-worker', attempts = attempts + 1
        where id in (select id from ${D} where tenant = $1 order by id limit 2)`,
      [tenant, until],
    );
    const { worker, lose } = lossyWorker();
    await worker.start();
    try {
      await rx.waitFor(2, 10_000);
      await new Promise((r) => setTimeout(r, 300)); // room for a wrong give-back to show
    } finally {
      await worker.stop();
    }
    assert.equal(lose.seen, 1);
    assert.equal(rx.received.length, 2, 'only the rows nobody else holds were sent');
    const { rows } = await fx.db.sql.query<{ status: string; n: number }>(
      `select status, count(*)::int as n from ${D} where tenant = $1 and locked_by = 'another-worker' group by status`,
      [tenant],
    );
    assert.deepEqual(rows, [{ status: 'pending', n: 2 }], "the other worker's rows are still its own");
  });

  test("while this worker's earlier claim is still being sent, only the lost claim's rows are given back", async () => {
    // The receiver holds the first two requests: the first claim's rows stay leased to this worker,
    // in flight, while its second claim is lost and given back. A give-back fenced by the worker alone
    // would hand the in-flight rows back too, and they would be sent twice.
    let held = 0;
    const rx = fx.closeLater(
      await startReceiver(async (_r, _n, res) => {
        if (held++ < 2) await new Promise((r) => setTimeout(r, 1500));
        res.writeHead(204).end();
      }),
    );
    const tenant = fx.tenant;
    await fx.webhooks.createEndpoint(fx.db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    await fx.db.sql.transaction(async (tx) => {
      for (let i = 0; i < 4; i++)
        await fx.webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    const { worker, lose } = lossyWorker(1, { concurrency: 4, batchSize: 2 });
    await worker.start();
    try {
      await rx.waitFor(4, 10_000);
      await new Promise((r) => setTimeout(r, 300)); // room for a wrong give-back to show
    } finally {
      await worker.stop();
    }
    assert.equal(lose.seen, 1, 'the second claim was lost');
    assert.equal(rx.received.length, 4, 'each delivery sent once');
    const { rows } = await fx.db.sql.query<{ attempts: number }>(
      `select attempts from ${fx.table('webhook_deliveries')} where tenant = $1 and status = 'delivered'`,
      [tenant],
    );
    assert.deepEqual(
      rows.map((r) => r.attempts),
      [1, 1, 1, 1],
    );
  });

  test('stop() gives back a lost claim it has not given back yet', async () => {
    const tenant = fx.tenant;
    // An endpoint nobody listens on: nothing is sent before the stop (the lost claim is the only one).
    await fx.webhooks.createEndpoint(fx.db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/none',
      eventTypes: ['*'],
    });
    await fx.db.sql.transaction(async (tx) => {
      for (let i = 0; i < 3; i++)
        await fx.webhooks.publish(tx, { tenant, type: 'order.created', data: { i } });
    });
    const { worker, lose } = lossyWorker(0, { pollIntervalMs: 60_000 });
    await worker.start();
    const until = Date.now() + 5000;
    while (lose.seen === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    await worker.stop(); // within the claim loop's 100 ms back-off: no claim ran since
    assert.equal(lose.seen, 1);
    const { rows } = await fx.db.sql.query<{ attempts: number; locked_by: string | null }>(
      `select attempts, locked_by from ${fx.table('webhook_deliveries')} where tenant = $1`,
      [tenant],
    );
    assert.deepEqual(
      rows.map((r) => [r.attempts, r.locked_by]),
      [
        [0, null],
        [0, null],
        [0, null],
      ],
    );
  });
});
