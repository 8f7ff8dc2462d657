// Server killed: the same payment load as response-lost, while the server PROCESS (`surety serve` on
// real PostgreSQL) is SIGKILLed and restarted at random moments. The clients reach it through the
// fault proxy (no drops), which follows each new process to its new port, so a kill looks to them
// like a cut connection or a refused one. Afterwards: exactly one payment per logical request, no
// acknowledged payment missing, no key row left in progress, and every key still replays.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { runMigrations } from '../../src/server.js';
import { API_KEYS, auth } from '../helpers.js';
import { type ServerProcess, spawnServer } from '../spawn.js';
import { delay, faultClient, pool, report, seeded, size, startFaultProxy } from './lib.js';

let db: TestDatabase;
const servers: ServerProcess[] = [];

describe('server process killed mid-load', { skip: needsPostgres }, () => {
  before(async () => {
    db = await createTestDatabase();
    await runMigrations(db.sql, db.schema);
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    await db?.close();
  });

  const start = async () => {
    const s = await spawnServer({ schema: db.schema, apiKeys: API_KEYS, env: { SURETY_WORKER: 'off' } });
    servers.push(s);
    return s;
  };
  const portOf = (s: ServerProcess) => Number(new URL(s.url).port);

  test('SIGKILL and restart at random moments: one payment per logical request, none lost, no orphaned key', async () => {
    const n = size(300, 3000);
    const maxKills = size(3, 12);
    const { random } = seeded('server-killed');
    let server = await start();
    const proxy = await startFaultProxy({ target: portOf(server), random });
    let retries = 0;
    let inFlight409 = 0;
    // 409 is retried here because POST /v1/payments answers 409 only for "this key is in flight"
    // (with Retry-After): after a kill, the dead process's backend can hold the key's advisory lock
    // for the moment PostgreSQL takes to notice. @surety/fetch does not retry 409 by default.
    const client = faultClient({
      retryStatuses: [408, 409, 429, 502, 503, 504],
      onRetry: (e) => {
        retries++;
        if (e.status === 409) inFlight409++;
      },
    });
    let done = false;
    let kills = 0;
    let completed = 0;
    // Kill at random points OF THE LOAD (after a random number of completed requests between 10% and
    // 80% of it), not at random times: a fast machine must not finish the load before the first kill.
    const killPoints = Array.from({ length: maxKills }, () => Math.floor(n * (0.1 + 0.7 * random()))).sort(
      (a, b) => a - b,
    );
    // Each restarted server answers a round of requests (one per connection of the load) before the
    // next kill: two kill points close together would otherwise restart it back to back, and a
    // request could spend its whole retry allowance on a server that is never up.
    const killer = (async () => {
      let restartedAt = 0;
      for (const point of killPoints) {
        while (!done && (completed < point || completed < restartedAt + 16)) await delay(5);
        if (done) break;
        await server.kill('SIGKILL');
        kills++;
        server = await start();
        proxy.target = portOf(server);
        restartedAt = completed;
      }
    })();
    try {
      const results = await pool(n, 16, async (i) => {
        const res = await client(`${proxy.url}/v1/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...auth('acme') },
          body: JSON.stringify({ amount: String(100 + i), currency: 'USD', customerId: `cus_kill_${i}` }),
        });
        const body = (await res.json()) as { id: string; customerId: string };
        completed++;
        return { status: res.status, id: body.id, customerId: body.customerId };
      });
      done = true;
      await killer;

      const failed = results.filter((r) => r.status !== 201);
      assert.deepEqual(failed, [], 'every logical request ended with a 201');
      const acknowledged = new Map(results.map((r, i) => [r.id, `cus_kill_${i}`]));
      assert.equal(acknowledged.size, n);

      const rows = (
        await db.sql.query<{ id: string; customer_id: string }>(
          `select id, customer_id from "${db.schema}".payments where customer_id like 'cus_kill_%'`,
        )
      ).rows;
      const inDb = new Map(rows.map((r) => [r.id, r.customer_id]));
      const lost = [...acknowledged].filter(([id, customer]) => inDb.get(id) !== customer).length;
      const duplicated = rows.length - new Set(rows.map((r) => r.customer_id)).size;
      const inProgress = Number(
        (
          await db.sql.query<{ n: string }>(
            `select count(*)::text as n from "${db.schema}".idempotency_keys where state <> 'completed'`,
          )
        ).rows[0]!.n,
      );
      report({
        scenario: 'server process SIGKILLed',
        operations: n,
        faults: kills,
        lost,
        duplicated,
        notes: `${retries} retries (${inFlight409} after a 409 in flight), ${proxy.stats.refused} connects refused`,
      });
      assert.ok(kills >= 1, 'the server was killed at least once during the load');
      assert.equal(lost, 0, 'no acknowledged payment is missing');
      assert.equal(duplicated, 0, 'no logical request created two payments');
      assert.equal(rows.length, n);
      assert.equal(inProgress, 0, 'no key row left in progress');

      // Every payment's key is completed and replays the same payment from the current process.
      const keys = (
        await db.sql.query<{ key: string; body: string }>(
          `select key, body from "${db.schema}".idempotency_keys where tenant = 'acme' and state = 'completed'`,
        )
      ).rows;
      const keyOf = new Map(keys.map((k) => [(JSON.parse(k.body) as { id: string }).id, k.key]));
      for (const id of acknowledged.keys()) assert.ok(keyOf.has(id), `payment ${id} has its key row`);
      const sample = [...acknowledged].slice(0, 20);
      for (const [id, customerId] of sample) {
        const i = Number(customerId.slice('cus_kill_'.length));
        const res = await fetch(`${server.url}/v1/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': keyOf.get(id)!, ...auth('acme') },
          body: JSON.stringify({ amount: String(100 + i), currency: 'USD', customerId }),
        });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('idempotent-replayed'), 'true');
        assert.equal(((await res.json()) as { id: string }).id, id);
      }
    } finally {
      done = true;
      await killer.catch(() => {});
      await client.close();
      await proxy.close();
    }
  });
});
