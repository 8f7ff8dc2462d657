// Database connections cut: the service's PostgreSQL backends are terminated with
// pg_terminate_backend (what a restart or failover does to them) again and again mid-load. Only the
// backends of this test's own pool are touched: they carry an application_name made of this file's
// schema, so other tests' connections running on the same server are never killed. The service must
// answer 503 meanwhile (never a 2xx for a write that is not in the database), recover by itself,
// and the clients' retries must complete.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPgSql, type Sql } from '@surety/db';
import {
  createTestDatabase,
  needsPostgres,
  poolerOptions,
  postgresUrl,
  type TestDatabase,
} from '@surety/db/testing';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { parseApiKeys } from '../../src/config.js';
import { runMigrations } from '../../src/server.js';
import { API_KEYS, auth } from '../helpers.js';
import { delay, faultClient, pool, report, seeded, size } from './lib.js';

let db: TestDatabase;
let sql: Sql;
let app: FastifyInstance;
let base: string;
let appName: string;
// A connection error with no listener is an uncaughtException: in `surety serve` it ends the process.
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

describe('database connections terminated mid-load', { skip: needsPostgres }, () => {
  before(async () => {
    process.on('uncaughtException', onUncaught);
    db = await createTestDatabase();
    await runMigrations(db.sql, db.schema);
    appName = `surety-faults:${db.schema}`;
    sql = createPgSql({ connectionString: postgresUrl, max: 8, applicationName: appName, ...poolerOptions });
    app = await buildApp({
      sql,
      config: {
        apiKeys: parseApiKeys(API_KEYS),
        bodyLimit: 65_536,
        idempotencyTtlMs: 86_400_000,
        idempotencyLeaseMs: 2_000,
        schema: db.schema,
      },
    });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    await app?.close();
    await sql?.close();
    await db?.close();
  });

  const terminate = async () => {
    const r = await db.sql.query<{ n: string }>(
      `select count(*)::text as n from (
         select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = $1 and pid <> pg_backend_pid()) t`,
      [appName],
    );
    return Number(r.rows[0]!.n);
  };

  test('503 while the backends are cut, no 2xx for a lost write, recovery without a restart', async () => {
    const n = size(300, 3000);
    const rounds = size(8, 40);
    const { random } = seeded('database-restart');
    const seen = new Map<number, number>();
    const client = faultClient({
      onRetry: (e) => {
        const key = e.status ?? 0;
        seen.set(key, (seen.get(key) ?? 0) + 1);
      },
    });
    let done = false;
    let terminated = 0;
    let cuts = 0;
    const cutter = (async () => {
      while (!done && cuts < rounds) {
        await delay(100 + Math.floor(random() * 300));
        if (done) break;
        terminated += await terminate();
        cuts++;
      }
    })();
    try {
      const results = await pool(n, 16, async (i) => {
        const res = await client(`${base}/v1/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth('acme') },
          body: JSON.stringify({ amount: String(100 + i), currency: 'USD', customerId: `cus_db_${i}` }),
        });
        const body = (await res.json()) as { id?: string; code?: string };
        return { status: res.status, id: body.id, code: body.code };
      });
      done = true;
      await cutter;

      const other = results.filter((r) => r.status !== 201);
      assert.deepEqual(other, [], 'every logical request ended with a 201 after its retries');
      const rows = (
        await db.sql.query<{ id: string; customer_id: string }>(
          `select id, customer_id from "${db.schema}".payments where customer_id like 'cus_db_%'`,
        )
      ).rows;
      const inDb = new Map(rows.map((r) => [r.id, r.customer_id]));
      const lost = results.filter((r, i) => inDb.get(r.id!) !== `cus_db_${i}`).length;
      const duplicated = rows.length - new Set(rows.map((r) => r.customer_id)).size;
      report({
        scenario: 'database backends terminated',
        operations: n,
        faults: terminated,
        lost,
        duplicated,
        notes: `${cuts} rounds; retried after: ${[...seen].map(([s, c]) => `${s || 'network'}×${c}`).join(', ')}`,
      });
      assert.ok(terminated >= 1, 'backends were terminated');
      assert.ok((seen.get(503) ?? 0) >= 1, 'the service answered 503 while its connections were cut');
      // 409 in_flight (with Retry-After) too: a phased payment whose release could not be written while
      // the connections were cut keeps its lease until it lapses, and a retry then resumes it.
      for (const status of seen.keys())
        assert.ok(status === 503 || status === 409, `only 503s and 409s were retried, saw ${status}`);
      assert.equal(lost, 0, 'every 201 names a payment that is in the database');
      assert.equal(duplicated, 0);
      assert.equal(rows.length, n);
      assert.deepEqual(uncaught.map(String), [], 'a killed connection never crashes the process');

      // Recovered by itself: ready, and a new write succeeds on the first attempt.
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 200);
      const res = await fetch(`${base}/v1/payments`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': 'after-the-storm',
          ...auth('acme'),
        },
        body: JSON.stringify({ amount: '1', currency: 'USD', customerId: 'cus_after' }),
      });
      assert.equal(res.status, 201);
    } finally {
      done = true;
      await cutter.catch(() => {});
      await client.close();
    }
  });

  test('while the database cannot be reached at all: 503 with Retry-After, nothing written', async () => {
    // A pool pointed at a port nothing listens on: every write must be refused, not run unprotected.
    const dead = createPgSql({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectionTimeoutMillis: 500,
    });
    const down = await buildApp({
      sql: dead,
      config: {
        apiKeys: parseApiKeys(API_KEYS),
        bodyLimit: 65_536,
        idempotencyTtlMs: 60_000,
        schema: db.schema,
      },
    });
    try {
      for (const key of ['k1', undefined]) {
        const res = await down.inject({
          method: key ? 'POST' : 'PUT',
          url: key ? '/v1/payments' : '/v1/inventory/sku_down',
          headers: {
            'content-type': 'application/json',
            ...auth('acme'),
            ...(key ? { 'idempotency-key': key } : {}),
          },
          payload: key ? { amount: '5', currency: 'USD', customerId: 'cus_down' } : { quantity: 1 },
        });
        assert.equal(res.statusCode, 503, res.body);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.equal(res.headers['retry-after'], '1');
      }
      assert.equal((await down.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
    } finally {
      await down.close();
      await dead.close();
    }
  });
});
