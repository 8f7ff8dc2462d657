// Several worker processes on one PostgreSQL: chaos (a flaky, slow receiver, 2,000 events) and a
// SIGKILL with leased deliveries. PostgreSQL only; loopback only; every wait is bounded.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, afterEach, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '../src/index.js';
import { spawnWorkerProcess, startReceiver, stopProcess } from '../src/testing.js';

let db: TestDatabase;
let webhooks: Webhooks;
const children: ChildProcess[] = [];

async function spawnWorker(env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = await spawnWorkerProcess({ databaseUrl: postgresUrl!, schema: db.schema, env });
  children.push(child);
  return child;
}

const stopChild = stopProcess;

describe('worker processes on PostgreSQL', { skip: needsPostgres }, () => {
  before(async () => {
    db = await createTestDatabase();
    webhooks = new Webhooks({
      sql: db.sql,
      schema: db.schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
    });
    await webhooks.migrate();
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => stopChild(c, 'SIGKILL')));
  });
  after(() => db?.close());

  test('chaos: 2 worker processes, a receiver failing 30% with random delays, its breaker opening and closing, 2,000 events: all delivered, none lost, duplicates only from retries', async () => {
    const tenant = 'chaos';
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const ok = new Map<string, number>();
    const rx = await startReceiver(async (r, _n, res) => {
      await new Promise((d) => setTimeout(d, Math.floor(random() * 20)));
      if (random() < 0.3) return void res.writeHead(500).end('flaky');
      const id = String(r.headers['webhook-id']);
      ok.set(id, (ok.get(id) ?? 0) + 1);
      res.writeHead(200).end();
    });
    try {
      await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      // Twenty retries: a delivery failing all 21 attempts at 30% is 1 run in 10^7 (with ten, about 1
      // in 300 runs ran out, a failed delivery and not what this test looks for). A breaker that
      // opens after 3 failures in a row: it opens and closes several times a run, with both workers
      // holding and releasing the same endpoint's deliveries. Its probes 100 ms apart, doubling to
      // 1 s at most (the defaults, 5 s to 5 min, could outlast the deadline after a few failed probes).
      const env = {
        SCHEDULE: Array(20).fill('50ms').join(','),
        CIRCUIT_THRESHOLD: '3',
        CIRCUIT_PROBE_MS: '100',
        CIRCUIT_MAX_PROBE_MS: '1000',
      };
      await Promise.all([spawnWorker(env), spawnWorker(env)]);
      const ids: string[] = [];
      for (let batch = 0; batch < 20; batch++) {
        await db.sql.transaction(async (tx) => {
          for (let i = 0; i < 100; i++)
            ids.push((await webhooks.publish(tx, { tenant, type: 'order.created', data: { batch, i } })).id);
        });
      }
      const deadline = Date.now() + 300_000; // only a hang: 10–20 s here, more on a loaded CI machine
      while (ok.size < ids.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (ok.size < ids.length) {
        // What the missing ones are doing: their rows, attempts and endpoint's breaker.
        const missing = ids.filter((id) => !ok.has(id));
        const state = await db.sql.query(
          `select d.event_id, d.status, d.attempts, d.next_attempt_at, d.locked_by, d.lease_until, d.last_error,
                  e.circuit_failures, e.circuit_opened_at, e.circuit_probe_at, e.circuit_hold_until, e.status as endpoint_status
             from "${db.schema}".webhook_deliveries d join "${db.schema}".webhook_endpoints e on e.id = d.endpoint_id
            where d.event_id = any($1::text[])`,
          [missing],
        );
        assert.fail(`${missing.length} events never delivered: ${JSON.stringify(state.rows)}`);
      }
      for (const id of ids) assert.ok(ok.has(id), `missing ${id}`);
      // Every request the receiver saw is an attempt the workers recorded: no unrecorded sends, and an
      // event was only received more than once where its delivery was retried.
      await Promise.all(children.map((c) => stopChild(c)));
      const rows = (
        await db.sql.query<{ event_id: string; status: string; attempts: number; recorded: number }>(
          `select d.event_id, d.status, d.attempts,
                  (select count(*) from "${db.schema}".webhook_attempts a where a.delivery_id = d.id)::int as recorded
             from "${db.schema}".webhook_deliveries d where d.tenant = $1`,
          [tenant],
        )
      ).rows;
      assert.equal(rows.length, ids.length);
      const receivedPer = new Map<string, number>();
      for (const r of rx.received) {
        const id = String(r.headers['webhook-id']);
        receivedPer.set(id, (receivedPer.get(id) ?? 0) + 1);
      }
      let retried = 0;
      for (const row of rows) {
        assert.equal(row.status, 'delivered');
        assert.equal(row.recorded, row.attempts);
        assert.equal(receivedPer.get(row.event_id), row.attempts, `event ${row.event_id}`);
        assert.equal(ok.get(row.event_id), 1, 'exactly one successful receipt (leases never expired here)');
        if (row.attempts > 1) retried++;
      }
      assert.ok(retried > 300, `only ${retried} deliveries were retried: the 30% failure did not happen`);
    } finally {
      await rx.close();
    }
  });

  test('SIGKILL a worker holding leased deliveries: another worker delivers them after the lease', async () => {
    const tenant = 'crash';
    let answer = false;
    const rx = await startReceiver((_r, _n, res) => {
      if (answer) res.writeHead(200).end();
      // otherwise hold the request open: the worker is killed while it waits
    });
    try {
      const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      const child = await spawnWorker({ LEASE_MS: '1500', TIMEOUT_MS: '30000' });
      for (let i = 0; i < 10; i++)
        await db.sql.transaction((tx) =>
          webhooks.publish(tx, { tenant, type: 'order.created', data: { i } }),
        );
      await rx.waitFor(10, 10_000);
      const leased = await db.sql.query<{ n: number }>(
        `select count(*)::int as n from "${db.schema}".webhook_deliveries where endpoint_id = $1 and status = 'pending' and locked_by is not null`,
        [endpoint.id],
      );
      assert.equal(leased.rows[0]!.n, 10, 'all ten are leased by the worker');
      const leases = await db.sql.query<{ event_id: string; ms: number }>(
        `select event_id, (extract(epoch from lease_until) * 1000)::float8 as ms from "${db.schema}".webhook_deliveries where endpoint_id = $1`,
        [endpoint.id],
      );
      const leaseEnd = new Map(leases.rows.map((r) => [r.event_id, r.ms]));
      await stopChild(child, 'SIGKILL');
      answer = true;
      const survivor = new DeliveryWorker({
        webhooks,
        listen: false,
        pollIntervalMs: 50,
        guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
      });
      await survivor.start();
      try {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const r = await db.sql.query<{ n: number }>(
            `select count(*)::int as n from "${db.schema}".webhook_deliveries where endpoint_id = $1 and status = 'delivered'`,
            [endpoint.id],
          );
          if (r.rows[0]!.n === 10) break;
          assert.ok(Date.now() < deadline, 'deliveries were not picked up after the lease');
          await new Promise((res) => setTimeout(res, 50));
        }
      } finally {
        await survivor.stop();
      }
      // The worker's clock and the receiver's are this machine's: no event resent before its own
      // lease ended.
      const early = rx.received
        .slice(10)
        .map((r) => ({ id: (JSON.parse(r.body) as { id: string }).id, at: r.at }))
        .filter(({ id, at }) => !(at >= leaseEnd.get(id)!));
      assert.deepEqual(early, [], 'resent before their lease ended');
      assert.equal(
        rx.received.length,
        20,
        'each event was sent twice: once to the killed worker, once after',
      );
    } finally {
      await rx.close();
    }
  });
});
