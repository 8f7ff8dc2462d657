// Payments chaos (issue 32): payments through the service (`surety serve`, a child process so it can
// be SIGKILLed) against the simulated provider failing 10% of answers after charging, cutting 10%
// of connections and answering 10% slowly; the service SIGKILLed at each named step of a payment
// (SURETY_FAULT_KILL_AT: before the charge, after the charge before it is recorded, after recording
// before the answer); clients retry each payment with its key until a final answer. Then: one
// charge at the provider per succeeded payment and none per failed one, every payment final and
// agreeing with the provider, none lost or doubled, exactly one payment.succeeded / payment.failed
// event per payment. On PostgreSQL (300 payments) and, smaller, on PGlite (the embedded database
// in a data directory, which the killed process leaves for the next one).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openSql, type Sql } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { type RunningSimulator, startSimulator } from '../../src/psp/serve.js';
import { TEST_CARDS } from '../../src/psp/simulator.js';
import { runMigrations } from '../../src/server.js';
import { API_KEYS, auth } from '../helpers.js';
import { type ServerProcess, spawnServer } from '../spawn.js';
import { delay, pool, report, seeded, startFaultProxy } from './lib.js';

const STEPS = ['before-charge', 'after-charge', 'after-record'] as const;

interface Backend {
  /** Env of the spawned service (the database). */
  env: Record<string, string>;
  schema: string;
  /** The database, for the checks (PGlite: opened once the service has stopped). */
  open(): Promise<Sql>;
  close(): Promise<void>;
}

async function postgres(): Promise<Backend> {
  const db: TestDatabase = await createTestDatabase();
  await runMigrations(db.sql, db.schema);
  return { env: {}, schema: db.schema, open: async () => db.sql, close: () => db.close() };
}

async function pglite(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), 'surety-chaos-'));
  let sql: Sql | undefined;
  return {
    // The embedded database: no pooler settings, even when the run goes through one (.ci/run).
    env: {
      DATABASE_URL: '',
      SURETY_DATA_DIR: dir,
      SURETY_DATABASE_POOLER: '',
      SURETY_DATABASE_DIRECT_URL: '',
    },
    schema: 'surety',
    async open() {
      sql ??= await openSql({ databaseUrl: undefined, dataDir: join(dir, 'db') });
      return sql;
    },
    async close() {
      await sql?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function chaos(backend: Backend, n: number, label: string): Promise<void> {
  const { random } = seeded(`payments-chaos-${label}`);
  const sim: RunningSimulator = await startSimulator({
    failAfterChargeRate: 0.1,
    dropRate: 0.1,
    slowRate: 0.1,
    slowMs: 300,
    random,
  });
  const servers: ServerProcess[] = [];
  const start = async (killAt?: string) => {
    const s = await spawnServer({
      schema: backend.schema,
      apiKeys: API_KEYS,
      env: {
        ...backend.env,
        SURETY_PSP_URL: sim.url,
        SURETY_PSP_DEADLINE_MS: '3000',
        SURETY_IDEMPOTENCY_LEASE_SECONDS: '1',
        ...(killAt ? { SURETY_FAULT_KILL_AT: killAt } : {}),
      },
    });
    servers.push(s);
    return s;
  };
  const portOf = (s: ServerProcess) => Number(new URL(s.url).port);
  // Each process dies at its own step, a little into the load; the last one lives.
  const plan = STEPS.map((step, i) => `${step}:${Math.max(2, Math.floor((n / 12) * (i + 1) * 0.5))}`);
  // A first server or proxy that fails to start must not leave the simulator open (the file would
  // never exit: seen hanging a run when the server refused its settings).
  let server: ServerProcess;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  try {
    server = await start(plan[0]);
    proxy = await startFaultProxy({ target: portOf(server) });
  } catch (error) {
    await Promise.all(servers.map((x) => x.kill()));
    await sim.close();
    throw error;
  }
  const kills: string[] = [];
  let done = false;
  // Resolved when the scenario ends (passed or failed): the restarts and the clients stop at once.
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const restarts = (async () => {
    for (let i = 0; i < plan.length && !done; i++) {
      const code = await Promise.race([server.exited, stopped.then(() => 'alive' as const)]);
      if (code === 'alive' || done) break;
      kills.push(plan[i]!);
      server = await start(plan[i + 1]);
      proxy.target = portOf(server);
    }
  })();

  const cards = (i: number) => (i % 10 === 7 ? TEST_CARDS.declined : TEST_CARDS.succeeds);
  const deadline = Date.now() + 100_000;
  let attempts = 0;
  try {
    const results = await pool(n, 12, async (i) => {
      const key = `chaos-${label}-${i}`;
      const body = JSON.stringify({
        amount: String(100 + i),
        currency: 'USD',
        customerId: `cus_${i}`,
        paymentMethod: cards(i),
      });
      for (;;) {
        assert.ok(Date.now() < deadline, `payment ${i} got no final answer in time`);
        if (done) throw new Error('the scenario ended');
        attempts++;
        try {
          const res = await fetch(`${proxy.url}/v1/payments`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': key, ...auth('acme') },
            body,
            signal: AbortSignal.timeout(10_000),
          });
          const text = await res.text();
          assert.ok(res.status < 500 || res.status === 503, `a 5xx other than 503: ${res.status} ${text}`);
          if (res.status === 201) return JSON.parse(text) as { id: string; status: string };
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error;
        }
        await delay(50 + 200 * random());
      }
    });
    done = true;
    stop();
    await restarts;
    assert.deepEqual(kills, plan, 'the service was killed at each step');

    // Stop the service (PGlite: the data directory belongs to one process).
    await server.kill('SIGTERM');
    const sql = await backend.open();
    const s = `"${backend.schema}"`;
    const payments = await sql.query<{ id: string; status: string; customer_id: string }>(
      `select id, status, customer_id from ${s}.payments where tenant = 'acme'`,
    );
    assert.equal(payments.rows.length, n, 'one payment per key: none lost, none doubled');
    const byId = new Map(payments.rows.map((r) => [r.id, r]));
    const events = await sql.query<{ type: string; id: string }>(
      `select type, data::json->>'id' as id from ${s}.webhook_events where type like 'payment.%'`,
    );
    const count = (type: string, id: string) =>
      events.rows.filter((e) => e.type === type && e.id === id).length;
    let succeeded = 0;
    for (const [i, answer] of results.entries()) {
      const row = byId.get(answer.id);
      assert.ok(row, `payment ${i} answered ${answer.id}, which exists`);
      assert.equal(row.customer_id, `cus_${i}`);
      assert.equal(row.status, answer.status, 'the answer agrees with the database');
      const charges = sim.simulator.chargesByReference.get(answer.id)?.length ?? 0;
      const expected = cards(i) === TEST_CARDS.declined ? 'failed' : 'succeeded';
      assert.equal(answer.status, expected, `payment ${i}`);
      assert.equal(charges, expected === 'succeeded' ? 1 : 0, `payment ${i}: charges at the provider`);
      assert.equal(count('payment.created', answer.id), 1);
      assert.equal(count('payment.succeeded', answer.id), expected === 'succeeded' ? 1 : 0);
      assert.equal(count('payment.failed', answer.id), expected === 'failed' ? 1 : 0);
      if (expected === 'succeeded') succeeded++;
    }
    // No charge at the provider for anything but these payments (a repeated call with a new key would show here).
    const allCharges = [...sim.simulator.chargesByReference.values()].reduce((a, c) => a + c.length, 0);
    assert.equal(allCharges, succeeded, 'no charge outside the answered payments');
    for (const count of sim.simulator.chargesByKey.values()) assert.equal(count, 1);
    const stuck = await sql.query(`select 1 from ${s}.idempotency_keys where state = 'in_progress'`);
    assert.equal(stuck.rows.length, 0, 'no key left in progress');
    report({
      scenario: `payments chaos (${label})`,
      operations: n,
      faults: kills.length,
      lost: 0,
      duplicated: 0,
      notes: `${attempts} client attempts, ${sim.simulator.requests} provider requests, ${succeeded} succeeded`,
    });
  } finally {
    done = true;
    stop();
    await Promise.all(servers.map((x) => x.kill()));
    await proxy.close();
    await sim.close();
  }
}

describe('payments chaos', () => {
  const backends: Backend[] = [];
  after(() => Promise.all(backends.map((b) => b.close())));

  test('PostgreSQL: 300 payments, 3 kills at the named steps, provider faults', {
    skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL (PostgreSQL)',
  }, async () => {
    const backend = await postgres();
    backends.push(backend);
    await chaos(backend, 300, 'pg');
  });

  test('PGlite: 60 payments, 3 kills at the named steps, provider faults', async () => {
    const backend = await pglite();
    backends.push(backend);
    await chaos(backend, 60, 'pglite');
  });
});
