// Recording outcomes whatever receivers answer and whatever the database does: a receiver's bytes
// PostgreSQL cannot hold (NUL, invalid UTF-8), a row the database refuses even so, and a database
// that cannot take writes for a while. One bad row never blocks another tenant's outcome, nothing is
// sent twice because an outcome was not recorded, and the worker claims nothing while it cannot
// record. Receivers on 127.0.0.1 (port 0); an injected clock moves leases, so nothing sleeps for one.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import {
  DeliveryWorker,
  type DeliveryWorkerOptions,
  parseAllowList,
  Webhooks,
  type WorkerEventMap,
} from '../src/index.js';
import { type Behaviour, startReceiver } from '../src/testing.js';

let db: TestDatabase;
let clock = Date.parse('2026-06-01T00:00:00Z');
let webhooks: Webhooks;
let run = 0;
const receivers: { close(): Promise<void> }[] = [];
const workers: DeliveryWorker[] = [];
const undo: string[] = [];
const LEASE_MS = 1000;

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

const D = () => `"${db.schema}".webhook_deliveries`;
const A = () => `"${db.schema}".webhook_attempts`;

// Registered inside each describe (node:test runs top-level hooks once per describe).
function fresh() {
  run++;
}
async function cleanup() {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  for (const statement of undo.splice(0).reverse()) await db.sql.query(statement);
  await db.sql.query(`update ${D()} set status = 'failed' where status = 'pending'`);
}

async function receiver(behaviour: Behaviour) {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

/** A worker, and every event it emitted, by name. */
function worker(options: Partial<DeliveryWorkerOptions> = {}) {
  const w = new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    leaseMs: LEASE_MS,
    schedule: [5, 300],
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    ...options,
  });
  workers.push(w);
  const seen = {
    unstorable: [] as WorkerEventMap['outcome:unstorable'][0][],
    errors: [] as Error[],
    blocked: [] as WorkerEventMap['outcomes:blocked'][0][],
    resumed: [] as WorkerEventMap['outcomes:resumed'][0][],
  };
  w.on('outcome:unstorable', (e) => seen.unstorable.push(e));
  w.on('worker:error', (e) => seen.errors.push(e));
  w.on('outcomes:blocked', (e) => seen.blocked.push(e));
  w.on('outcomes:resumed', (e) => seen.resumed.push(e));
  return { w, seen };
}

/** An endpoint of its own tenant, and one event published to it; returns the delivery's id. */
async function deliveryTo(url: string, label: string) {
  const tenant = `r${run}-${label}`;
  const { endpoint } = await webhooks.createEndpoint(db.sql, { tenant, url, eventTypes: ['*'] });
  await db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.created', data: { label } }));
  const { rows } = await db.sql.query<{ id: string }>(
    `select id from ${D()} where tenant = $1 and endpoint_id = $2`,
    [tenant, endpoint.id],
  );
  return { tenant, endpointId: endpoint.id, id: rows[0]!.id };
}

const delivery = async (id: string) =>
  (
    await db.sql.query<{
      status: string;
      attempts: number;
      last_error: string | null;
      locked_by: string | null;
    }>(`select status, attempts, last_error, locked_by from ${D()} where id = $1`, [id])
  ).rows[0]!;

const attemptRows = async (id: string) =>
  (await db.sql.query<{ n: number }>(`select count(*)::int as n from ${A()} where delivery_id = $1`, [id]))
    .rows[0]!.n;

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('bytes a receiver sends', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('a 500 with a NUL and one with invalid UTF-8 are recorded, sanitised; another tenant in the same batch completes; nothing is sent twice', async () => {
    const nul = await receiver((_r, _n, res) => void res.writeHead(500).end('bad\0byte'));
    // invalid UTF-8: a lone continuation byte, an overlong NUL (C0 80), a UTF-8-encoded surrogate
    const invalid = await receiver(
      (_r, _n, res) =>
        void res.writeHead(500).end(Buffer.from([0x62, 0x80, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x21])),
    );
    const healthy = await receiver((_r, _n, res) => void res.writeHead(200).end('ok'));
    const a = await deliveryTo(nul.url, 'nul');
    const b = await deliveryTo(invalid.url, 'invalid');
    const c = await deliveryTo(healthy.url, 'healthy');
    const { w, seen } = worker();
    assert.equal(await w.drain(), 3, 'the three deliveries in one batch');
    assert.equal((await delivery(c.id)).status, 'delivered', "the other tenant's delivery completed");
    for (const d of [a, b]) {
      const row = await delivery(d.id);
      assert.deepEqual([row.status, row.last_error, row.locked_by], ['pending', 'http_500', null]);
    }
    const [attemptA] = (await webhooks.listAttempts(db.sql, {
      tenant: a.tenant,
      deliveryId: a.id,
    }))!;
    assert.equal(attemptA!.status, 500);
    assert.equal(attemptA!.errorCode, 'http_500');
    assert.equal(attemptA!.responseExcerpt, 'bad\uFFFDbyte', 'the NUL replaced by U+FFFD');
    const [attemptB] = (await webhooks.listAttempts(db.sql, {
      tenant: b.tenant,
      deliveryId: b.id,
    }))!;
    assert.equal(
      attemptB!.responseExcerpt,
      'b\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD!',
      'invalid bytes replaced',
    );
    assert.deepEqual(
      seen.unstorable.map((e) => [e.deliveryId, e.handled]),
      [[a.id, 'replaced']],
      'counted: the NUL was replaced (invalid bytes were replaced when decoding)',
    );
    // A lease later (before the 5 s retry): nothing claimed again, nothing sent again.
    clock += 2 * LEASE_MS;
    assert.equal(await w.drain(), 0);
    assert.deepEqual(
      [nul.received.length, invalid.received.length, healthy.received.length],
      [1, 1, 1],
      'each receiver got its webhook once',
    );
    // The retry goes out on the schedule, and is recorded the same way.
    clock += 5_000;
    assert.equal(await w.drain(), 2);
    assert.equal(await attemptRows(a.id), 2);
    assert.equal(healthy.received.length, 1);
  });

  // The batch travels as jsonb tuples (sql/complete.ts): what is recorded is every character the
  // receiver sent, those JSON, array literals and SQL quote included, each in its own attempt's row.
  test("a body of JSON's, arrays' and SQL's metacharacters is recorded exactly, in its own attempt", async () => {
    const bodies = [
      '{"a":[1,"b\\"c"],"NULL":null}',
      `{NULL,"x",'y'}\\N \\u0041 \u00e9\u{1F600} tab\there\r\nend`,
      'NULL',
      '',
    ];
    const statuses = [500, 501, 502, 505]; // (429 and 503 are throttling answers)
    const made = [];
    for (const [i, body] of bodies.entries()) {
      const r = await receiver((_r, _n, res) => void res.writeHead(statuses[i]!).end(body));
      made.push(await deliveryTo(r.url, `meta${i}`));
    }
    const { w, seen } = worker();
    assert.equal(await w.drain(), bodies.length, 'one batch');
    for (const [i, d] of made.entries()) {
      const [attempt] = (await webhooks.listAttempts(db.sql, { tenant: d.tenant, deliveryId: d.id }))!;
      assert.equal(attempt!.status, statuses[i]);
      assert.equal(attempt!.errorCode, `http_${statuses[i]}`);
      assert.equal(attempt!.responseExcerpt, bodies[i], `body ${i}`);
      const row = await delivery(d.id);
      assert.deepEqual([row.status, row.last_error, row.locked_by], ['pending', `http_${statuses[i]}`, null]);
    }
    assert.deepEqual(seen.unstorable, []);
  });
});

describe('a row the database refuses even after sanitising', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('the batch is split: every other outcome is recorded, the bad one isolated, counted, logged once, never retried', async () => {
    const failing = await receiver((_r, _n, res) => void res.writeHead(500).end('nope'));
    const healthy = await receiver((_r, _n, res) => void res.writeHead(200).end('ok'));
    const words = await receiver((_r, _n, res) => void res.writeHead(200).end('forbidden words'));
    const poison = await deliveryTo(failing.url, 'poison');
    const others = [];
    for (let i = 0; i < 6; i++) others.push(await deliveryTo(healthy.url, `ok${i}`));
    const wordy = await deliveryTo(words.url, 'words');
    // The test's own rules: the attempt row of one delivery can never be written, and no excerpt
    // may say "forbidden". Both fail the whole statement (SQLSTATE 23514), as a NUL did (22021).
    await db.sql.query(
      `alter table ${A()} add constraint poison_attempt check (delivery_id <> '${poison.id}')`,
    );
    undo.push(`alter table ${A()} drop constraint poison_attempt`);
    await db.sql.query(
      `alter table ${A()} add constraint no_forbidden check (response_excerpt not like '%forbidden%')`,
    );
    undo.push(`alter table ${A()} drop constraint no_forbidden`);
    const { w, seen } = worker();
    assert.equal(await w.drain(), 8);
    for (const d of others) {
      assert.equal((await delivery(d.id)).status, 'delivered', d.tenant);
      assert.equal(await attemptRows(d.id), 1);
    }
    // stored with what could be stored: the attempt without its excerpt
    assert.equal((await delivery(wordy.id)).status, 'delivered');
    const [kept] = (await webhooks.listAttempts(db.sql, {
      tenant: wordy.tenant,
      deliveryId: wordy.id,
    }))!;
    assert.deepEqual([kept!.status, kept!.responseExcerpt], [200, null]);
    // nothing about the attempt could be stored: the delivery is failed with a clear code
    const bad = await delivery(poison.id);
    assert.deepEqual([bad.status, bad.last_error, bad.locked_by], ['failed', 'attempt_unrecorded', null]);
    assert.equal(await attemptRows(poison.id), 0);
    assert.deepEqual(
      seen.unstorable.map((e) => [e.deliveryId, e.handled]).sort(),
      [
        [poison.id, 'attempt_dropped'],
        [wordy.id, 'text_dropped'],
      ].sort(),
    );
    assert.equal(seen.errors.length, 2, 'logged once each');
    for (const e of seen.errors) assert.equal((e as { code?: string }).code, 'SURETY_OUTCOME_UNSTORABLE');
    // Leases pass and retries come due: the failed one is not sent again, the others are done.
    clock += 10 * 60_000;
    assert.equal(await w.drain(), 0);
    assert.equal(failing.received.length, 1);
    assert.equal(healthy.received.length, 6);
    assert.equal(words.received.length, 1);
  });
});

describe('a delivery the database will not let go of', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('when not even the delivery can be recorded, the outcome is given up once and the others recorded', async () => {
    const rx = await receiver((_r, _n, res) => void res.writeHead(200).end('ok'));
    const stuck = await deliveryTo(rx.url, 'stuck');
    const others = [await deliveryTo(rx.url, 'a'), await deliveryTo(rx.url, 'b')];
    // The test's own rule: this delivery's lease can never be released (the claim may take it).
    const s = `"${db.schema}"`;
    await db.sql.query(`
      create function ${s}.keep_locked() returns trigger language plpgsql as $$
      begin
        raise exception 'delivery % is kept locked', old.id using errcode = '23514';
      end $$`);
    await db.sql.query(
      `create trigger keep_locked before update on ${D()} for each row
         when (old.id = '${stuck.id}' and new.locked_by is null) execute function ${s}.keep_locked()`,
    );
    undo.push(`drop function ${s}.keep_locked() cascade`);
    const { w, seen } = worker();
    assert.equal(await w.drain(), 3);
    for (const d of others) assert.equal((await delivery(d.id)).status, 'delivered');
    assert.deepEqual(
      seen.unstorable.map((e) => [e.deliveryId, e.handled]),
      [[stuck.id, 'lost']],
    );
    assert.equal(seen.errors.length, 1, 'logged once, not retried');
    assert.match(seen.errors[0]!.message, /comes back when its lease ends/);
  });
});

describe('a database that cannot take outcomes for a while', () => {
  beforeEach(fresh);
  afterEach(cleanup);

  test('the buffer stays bounded, nothing is claimed meanwhile, everything is recorded once writes work again, nothing sent twice', async () => {
    const rx = await receiver((_r, _n, res) => void res.writeHead(200).end('ok'));
    const n = 40;
    const tenant = `r${run}-outage`;
    await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
    for (let i = 0; i < n; i++)
      await db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.created', data: { i } }));
    // While `outage` holds a row, every write of an attempt fails as a lost connection does
    // (SQLSTATE 08006): the claim still works, so only the worker's own restraint stops claims.
    const s = `"${db.schema}"`;
    await db.sql.query(`create table ${s}.outage (on_ boolean)`);
    await db.sql.query(`insert into ${s}.outage values (true)`);
    await db.sql.query(`
      create function ${s}.outage_check() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from ${s}.outage) then
          raise exception 'simulated connection failure' using errcode = '08006';
        end if;
        return null;
      end $$`);
    await db.sql.query(
      `create trigger outage before insert on ${A()} for each statement execute function ${s}.outage_check()`,
    );
    undo.push(`drop table ${s}.outage`, `drop function ${s}.outage_check() cascade`);
    const concurrency = 2;
    const batchSize = 4;
    const capacity = concurrency + batchSize;
    const { w, seen } = worker({ concurrency, batchSize, pollIntervalMs: 10, flushIntervalMs: 5 });
    await w.start();
    await until(() => seen.errors.length >= 3, 'three failed writes');
    const sentDuringOutage = rx.received.length;
    assert.ok(sentDuringOutage <= 2 * capacity, `${sentDuringOutage} sent while nothing could be recorded`);
    assert.ok(seen.blocked.length === 1, 'blocked once');
    assert.ok(seen.blocked[0]!.buffered <= 2 * capacity, `${seen.blocked[0]!.buffered} outcomes held`);
    // Every claim counts an attempt on the row (a claim again, after a lease, counts a second).
    const claims = async () =>
      (
        await db.sql.query<{ n: number }>(
          `select coalesce(sum(attempts), 0)::int as n from ${D()} where tenant = $1`,
          [tenant],
        )
      ).rows[0]!.n;
    const claimedBefore = await claims();
    assert.ok(claimedBefore <= 2 * capacity, `${claimedBefore} claimed`);
    // Leases run out meanwhile: a worker that kept claiming would take its own rows again.
    clock += 10 * LEASE_MS;
    const errors = seen.errors.length;
    await until(() => seen.errors.length >= errors + 2, 'two more failed writes');
    assert.equal(await claims(), claimedBefore, 'nothing claimed while outcomes could not be written');
    await db.sql.query(`delete from ${s}.outage`);
    await until(
      async () =>
        (
          await db.sql.query<{ n: number }>(
            `select count(*)::int as n from ${D()} where tenant = $1 and status = 'delivered'`,
            [tenant],
          )
        ).rows[0]!.n === n,
      'every delivery recorded',
    );
    assert.equal(rx.received.length, n, 'each sent once');
    assert.equal(new Set(rx.received.map((r) => r.headers['webhook-id'])).size, n);
    const perDelivery = await db.sql.query<{ n: number }>(
      `select count(*)::int as n from ${A()} a join ${D()} d on d.id = a.delivery_id where d.tenant = $1 group by a.delivery_id`,
      [tenant],
    );
    assert.equal(perDelivery.rows.length, n);
    assert.ok(
      perDelivery.rows.every((r) => r.n === 1),
      'one attempt row each',
    );
    assert.equal(seen.resumed.length, 1);
    assert.equal(seen.unstorable.length, 0, 'nothing dropped because the database blinked');
  });
});
