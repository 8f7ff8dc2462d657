// A worker on a pool the application built itself (host / user / database options, no connection
// string) is woken by NOTIFY, not by its poll. The poll interval is set far above the bound, so a
// worker whose LISTEN failed (it falls back to polling and only emits worker:error) misses it.
// PostgreSQL only; loopback only; every wait is bounded.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPgSql, type Sql } from '@surety/db';
import {
  createTestDatabase,
  directOnly,
  needsPostgres,
  postgresUrl,
  type TestDatabase,
} from '@surety/db/testing';
import pg from 'pg';
import { DeliveryWorker, parseAllowList, Webhooks } from '../src/index.js';
import { startReceiver } from '../src/testing.js';

const POLL_MS = 10_000;
// NOTIFY wake-ups measured 11–70 ms here; polling would take up to POLL_MS. The bound leaves room for
// a loaded CI machine and is still far below the poll.
const BOUND_MS = 2_500;

describe('a worker on your own pg.Pool', { skip: needsPostgres || directOnly }, () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let sql: Sql;
  before(async () => {
    db = await createTestDatabase();
    const u = new URL(postgresUrl!);
    pool = new pg.Pool({
      host: u.hostname,
      port: Number(u.port || 5432),
      user: decodeURIComponent(u.username),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      database: decodeURIComponent(u.pathname.slice(1)),
      max: 4,
    });
    sql = createPgSql({ pool });
  });
  after(async () => {
    await sql?.close();
    await pool?.end();
    await db?.close();
  });

  test(`delivers on NOTIFY: each event well before the ${POLL_MS} ms poll`, async (t) => {
    const webhooks = new Webhooks({
      sql,
      schema: db.schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
    });
    await webhooks.migrate();
    const rx = await startReceiver();
    const worker = new DeliveryWorker({
      webhooks,
      pollIntervalMs: POLL_MS,
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    const errors: Error[] = [];
    worker.on('worker:error', (e) => errors.push(e));
    try {
      await webhooks.createEndpoint(sql, { tenant: 'own', url: rx.url, eventTypes: ['*'] });
      await worker.start();
      assert.deepEqual(errors, [], 'LISTEN failed: the worker fell back to polling');
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = Date.now();
        await sql.transaction((tx) =>
          webhooks.publish(tx, { tenant: 'own', type: 'order.created', data: { i } }),
        );
        await rx.waitFor(i + 1, POLL_MS + 5_000);
        latencies.push(rx.received[i]!.at - started);
      }
      t.diagnostic(`publish to receipt: ${latencies.join(', ')} ms`);
      assert.ok(
        Math.max(...latencies) < BOUND_MS,
        `delivery took ${latencies.join(', ')} ms: woken by the poll, not by NOTIFY`,
      );
    } finally {
      await worker.stop();
      await rx.close();
    }
  });
});
