// The service behind a transaction-mode PgBouncer (Debian's 1.18: no prepared-statement tracking),
// as most hosted PostgreSQL runs it: keyed POSTs, their replays, a 409 while the original is in
// flight, a webhook delivered within the documented wake-up latency (LISTEN on the direct URL, or
// polling without one), and a pooler the service was not told about refused at start, naming the
// setting. Before issue 33, 9 of 12 keyed POSTs through this pooler answered 500 (42P05 / 26000).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { startReceiver } from '@surety/webhooks/testing';
import { pgbouncerMissing, type RunningPgBouncer, startPgBouncer } from '../../../../scripts/pgbouncer.mjs';
import { loadConfig } from '../../src/config.js';
import { runMigrations } from '../../src/server.js';
import { API_KEYS, auth, newKey, PAYMENT, postKeyed, waitForLockWait } from '../helpers.js';
import { type ServerProcess, spawnServer } from '../spawn.js';

// Under .ci/run's pooler pass DATABASE_URL is itself the pooler: this test starts its own in front
// of the direct server.
const direct = process.env.SURETY_DATABASE_DIRECT_URL || postgresUrl;
const skip = needsPostgres || pgbouncerMissing();

/** The documented wake-up latency without LISTEN (docs/operations.md): the worker's 500 ms poll. */
const POLL_LATENCY_MS = 500;

let db: TestDatabase;
let bouncer: RunningPgBouncer;
const servers: ServerProcess[] = [];

const post = postKeyed;

const start = async (env: Record<string, string>) => {
  const s = await spawnServer({
    schema: db.schema,
    apiKeys: API_KEYS,
    env: {
      DATABASE_URL: bouncer.url,
      // Unset unless the test sets them (.ci/run's pooler pass exports both).
      SURETY_DATABASE_POOLER: '',
      SURETY_DATABASE_DIRECT_URL: '',
      SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      SURETY_WEBHOOK_ALLOW_HTTP: 'true',
      ...env,
    },
  });
  servers.push(s);
  return s;
};

describe('the service behind PgBouncer in transaction mode', { skip }, () => {
  before(async () => {
    db = await createTestDatabase();
    await runMigrations(db.sql, db.schema);
    bouncer = await startPgBouncer({ databaseUrl: direct! });
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    await bouncer?.stop();
    await db?.close();
  });

  test('keyed POSTs, their replays and a 409 in flight; no 5xx', async () => {
    const s = await start({ SURETY_DATABASE_POOLER: 'transaction', SURETY_DATABASE_DIRECT_URL: direct! });
    // 40 new keys, 8 at a time: each transaction lands on whichever server connection is free.
    const keys = Array.from({ length: 40 }, () => newKey());
    const first: Response[] = [];
    for (let i = 0; i < keys.length; i += 8) {
      first.push(
        ...(await Promise.all(
          keys.slice(i, i + 8).map((k) => post(s.url, k, { ...PAYMENT, customerId: `cus_${k}` })),
        )),
      );
    }
    const bodies = await Promise.all(first.map((r) => r.text()));
    assert.deepEqual(
      first.map((r, i) => `${r.status} ${r.status === 201 ? '' : bodies[i]}`),
      keys.map(() => '201 '),
    );
    for (let i = 0; i < keys.length; i += 8) {
      const replays = await Promise.all(
        keys.slice(i, i + 8).map((k) => post(s.url, k, { ...PAYMENT, customerId: `cus_${k}` })),
      );
      for (const [j, r] of replays.entries()) {
        assert.equal(r.status, 201);
        assert.equal(r.headers.get('idempotent-replayed'), 'true');
        assert.equal(await r.text(), bodies[i + j], 'the replay is the stored answer, byte for byte');
      }
    }
    const n = await db.sql.query<{ n: string }>(
      `select count(*)::text as n from "${db.schema}".payments where customer_id = any($1)`,
      [keys.map((k) => `cus_${k}`)],
    );
    assert.equal(Number(n.rows[0]!.n), keys.length, 'one payment per key');

    // In flight: the original waits on a lock held on the direct connection.
    const key = newKey();
    const body = { ...PAYMENT, customerId: `cus_${key}` };
    const blocker = db.connect(1);
    try {
      let pending: Promise<Response> | undefined;
      await blocker.transaction(async (tx) => {
        await tx.query(`lock table "${db.schema}".payments in exclusive mode`);
        pending = post(s.url, key, body);
        await waitForLockWait(db.sql, db.schema);
        const res = await post(s.url, key, body);
        assert.equal(res.status, 409);
        assert.equal(((await res.json()) as { code: string }).code, 'idempotency_key_in_use');
        assert.ok(res.headers.get('retry-after'));
      });
      assert.equal((await pending!).status, 201);
    } finally {
      await blocker.close();
    }
  });

  for (const [label, withDirect, boundMs] of [
    ['LISTEN on SURETY_DATABASE_DIRECT_URL', true, 2000],
    ['no direct URL: polling', false, POLL_LATENCY_MS + 2000],
  ] as const) {
    test(`a payment's webhook is delivered (${label})`, async () => {
      const s = await start({
        SURETY_DATABASE_POOLER: 'transaction',
        ...(withDirect ? { SURETY_DATABASE_DIRECT_URL: direct! } : {}),
      });
      if (!withDirect) assert.match(s.output(), /SURETY_DATABASE_DIRECT_URL/, 'the log says why it polls');
      const rx = await startReceiver();
      try {
        const ep = await fetch(`${s.url}/v1/webhook-endpoints`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': newKey(), ...auth('acme') },
          body: JSON.stringify({ url: rx.url, eventTypes: ['payment.created'] }),
        });
        assert.equal(ep.status, 201, await ep.text());
        // The worker is idle (nothing due): a new event must wake it within the bound.
        await new Promise((r) => setTimeout(r, 1500));
        const key = newKey();
        const sent = Date.now();
        const res = await post(s.url, key, { ...PAYMENT, customerId: `cus_${key}` });
        assert.equal(res.status, 201);
        const { id } = (await res.json()) as { id: string };
        await rx.waitFor(1, 15_000);
        const got = rx.received.find((r) => r.body.includes(id));
        assert.ok(got, 'the payment.created event arrived');
        const latency = got.at - sent;
        process.stderr.write(`[pooler] ${label}: delivered ${latency} ms after the POST\n`);
        assert.ok(latency < boundMs, `delivered after ${latency} ms (bound ${boundMs} ms)`);
      } finally {
        await rx.close();
        await s.kill('SIGTERM');
      }
    });
  }

  test('a transaction pooler the service was not told about: it refuses to start, naming the setting', async () => {
    await assert.rejects(start({}), (error: Error) =>
      /SURETY_DATABASE_POOLER=transaction/.test(error.message),
    );
  });
});

test('SURETY_DATABASE_POOLER and SURETY_DATABASE_DIRECT_URL are checked at start, naming the setting', () => {
  const base = { SURETY_API_KEYS: API_KEYS, DATABASE_URL: 'postgres://u@127.0.0.1:6432/db' };
  assert.throws(
    () => loadConfig({ ...base, SURETY_DATABASE_POOLER: 'session' }),
    /SURETY_DATABASE_POOLER must be/,
  );
  assert.throws(
    () => loadConfig({ ...base, SURETY_DATABASE_DIRECT_URL: 'http://127.0.0.1/x' }),
    /SURETY_DATABASE_DIRECT_URL must be a postgres:\/\/ URL/,
  );
  assert.throws(
    () => loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_DATABASE_POOLER: 'transaction' }),
    /need DATABASE_URL/,
  );
  const config = loadConfig({
    ...base,
    SURETY_DATABASE_POOLER: 'transaction',
    SURETY_DATABASE_DIRECT_URL: 'postgres://u@127.0.0.1:5432/db',
  });
  assert.equal(config.databasePooler, 'transaction');
  assert.equal(config.databaseDirectUrl, 'postgres://u@127.0.0.1:5432/db');
  assert.equal(loadConfig(base).databasePooler, 'none');
});
