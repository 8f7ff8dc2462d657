// Fairness and rate limits at the claim: what a rate-limited backlog costs the database (D4 of issue
// 15), and caps on attempts in flight per endpoint and per tenant across workers (D3).
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, type DeliveryWorkerOptions, parseAllowList, Webhooks } from '../src/index.js';
import { startReceiver } from '../src/testing.js';

let db: TestDatabase;
let webhooks: Webhooks;
let tenantN = 0;
const receivers: { close(): Promise<void> }[] = [];
const workers: DeliveryWorker[] = [];

before(async () => {
  db = await createTestDatabase();
  // Real time: the token bucket refills with the wall clock.
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  // Every row update of the deliveries table, counted by a statement trigger: exact on both backends
  // (the cumulative statistics lag by up to a second and are per backend until flushed).
  const S = `"${db.schema}"`;
  await db.sql.query(`create table ${S}.update_count (n bigint not null)`);
  await db.sql.query(`insert into ${S}.update_count values (0)`);
  await db.sql.query(`create function ${S}.count_updates() returns trigger language plpgsql as $$
      begin
        update ${S}.update_count set n = n + (select count(*) from changed);
        return null;
      end $$`);
  await db.sql.query(`create trigger count_updates after update on ${S}.webhook_deliveries
      referencing new table as changed for each statement execute function ${S}.count_updates()`);
});
after(() => db.close());

async function cleanup() {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await db.sql.query(
    `update "${db.schema}".webhook_deliveries set status = 'failed' where status = 'pending'`,
  );
}

function worker(options: Partial<DeliveryWorkerOptions> = {}) {
  const w = new DeliveryWorker({
    webhooks,
    listen: false,
    timeoutMs: 2000,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    ...options,
  });
  workers.push(w);
  return w;
}

const updates = async () =>
  Number((await db.sql.query<{ n: string }>(`select n::text from "${db.schema}".update_count`)).rows[0]!.n);

async function backlog(tenant: string, n: number) {
  for (let i = 0; i < n; i += 100) {
    await db.sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(n, i + 100); j++)
        await webhooks.publish(tx, { tenant, type: 'order.created', data: { j } });
    });
  }
}

describe('a rate-limited backlog', () => {
  beforeEach(() => void tenantN++);
  afterEach(cleanup);

  test('costs row updates in proportion to what is sent, not to the backlog', async () => {
    const tenant = `rl${tenantN}`;
    const rx = await startReceiver();
    receivers.push(rx);
    await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'], rateLimit: 10 });
    await backlog(tenant, 300);
    const before = await updates();
    const w = worker({ pollIntervalMs: 100 });
    await w.start();
    // 3 s at 10/s: ~40 sent (a full bucket of 10, then 10 a second) out of 300 queued
    await new Promise((r) => setTimeout(r, 3000));
    await w.stop();
    const sent = rx.received.length;
    const written = (await updates()) - before;
    assert.ok(sent >= 20 && sent <= 50, `${sent} sent in 3 s at 10/s`);
    // A delivery is claimed (1 update) and completed (1); a row the bucket refuses at its claim is put
    // back once more. Claiming the whole backlog and putting it back every ~100 ms made this ~150.
    const perDelivery = written / sent;
    assert.ok(
      perDelivery < 4,
      `${written} row updates for ${sent} deliveries (${perDelivery.toFixed(1)} each)`,
    );
  });
});

// keep the imports used until the D3 scenario below lands
void needsPostgres;
