// Fairness and rate limits at the claim: what a rate-limited backlog costs the database (D4 of issue
// 15), and caps on attempts in flight per endpoint and per tenant across workers (D3).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, type DeliveryWorkerOptions, parseAllowList, Webhooks } from '../src/index.js';
import { claimOnce, startReceiver, webhooksInternals } from '../src/testing.js';

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

  test('costs row updates in proportion to what is sent, not to the backlog', async (t) => {
    const tenant = `rl${tenantN}`;
    const rx = await startReceiver();
    receivers.push(rx);
    await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'], rateLimit: 10 });
    await backlog(tenant, 300);
    const before = await updates();
    // Attempts get 30 s: on a loaded machine the in-process receiver can miss a 2 s timeout ten times
    // in a row, and the circuit breaker that opens then moves the whole backlog twice (600 updates:
    // the breaker's cost, not the rate limit's; seen under load on PGlite).
    const w = worker({ pollIntervalMs: 100, timeoutMs: 30_000 });
    const started = Date.now();
    await w.start();
    // At 10/s: a full bucket of 10, then 10 a second, out of 300 queued. Run until 30 are sent (about
    // 2 s here; bounded at 60 s for a loaded machine), so the count does not depend on its speed.
    for (let i = 0; i < 600 && rx.received.length < 30; i++) await new Promise((r) => setTimeout(r, 100));
    await w.stop();
    const seconds = (Date.now() - started) / 1000;
    const sent = rx.received.length;
    const written = (await updates()) - before;
    assert.ok(sent >= 30, `${sent} sent in ${seconds.toFixed(1)} s at 10/s`);
    assert.ok(
      sent <= 10 + 10 * seconds + 10,
      `${sent} sent in ${seconds.toFixed(1)} s: more than 10/s allows`,
    );
    // A delivery is claimed (1 update) and completed (1); a row the bucket refuses at its claim is put
    // back once more. Claiming the whole backlog and putting it back every ~100 ms made this ~150.
    const perDelivery = written / sent;
    t.diagnostic(`${written} row updates for ${sent} deliveries`);
    const attempts = await db.sql.query<{ status: number | null; error_code: string | null; n: number }>(
      `select status, error_code, count(*)::int as n from "${db.schema}".webhook_attempts
        where tenant = $1 group by 1, 2 order by 3 desc`,
      [tenant],
    );
    assert.ok(
      perDelivery < 4,
      `${written} row updates for ${sent} deliveries (${perDelivery.toFixed(1)} each); attempts: ${JSON.stringify(attempts.rows)}`,
    );
  });
});

describe('claims across tenants', () => {
  beforeEach(() => void tenantN++);
  afterEach(cleanup);

  test("a claim interleaves tenants: one tenant's burst does not put another's due rows behind it", async () => {
    const burst = `burst${tenantN}`;
    const quiet = `quiet${tenantN}`;
    const a = await webhooks.createEndpoint(db.sql, {
      tenant: burst,
      url: 'http://127.0.0.1:9/a',
      eventTypes: ['*'],
    });
    const b = await webhooks.createEndpoint(db.sql, {
      tenant: burst,
      url: 'http://127.0.0.1:9/b',
      eventTypes: ['*'],
    });
    await webhooks.createEndpoint(db.sql, { tenant: quiet, url: 'http://127.0.0.1:9/q', eventTypes: ['*'] });
    await backlog(burst, 150); // 300 deliveries, all due before the quiet tenant's
    await backlog(quiet, 3);
    const now = Date.now() + 1000;
    type Row = { id: string | null; tenant: string; endpoint_id: string };
    const claim = (o: { window: number; perTenant: number; mine?: Row[] }) =>
      db.sql.transaction(
        async (tx) => {
          const counts = new Map<string, number>();
          for (const r of o.mine ?? []) counts.set(r.endpoint_id, (counts.get(r.endpoint_id) ?? 0) + 1);
          const { rows } = await claimOnce(tx, webhooks, [
            new Date(now).toISOString(),
            8,
            new Date(now + 60_000).toISOString(),
            'interleave',
            o.window,
            1000,
            o.perTenant,
            [...counts.keys()].map(() => burst),
            [...counts.keys()],
            [...counts.values()],
          ]);
          return rows;
        },
        { first: webhooksInternals(webhooks).st.claimSettings },
      );
    const tenants = (rows: Row[]) => rows.map((r) => (r.tenant === quiet ? 'quiet' : 'burst'));
    // A window that reaches the quiet tenant's rows: every tenant's first row, then every tenant's
    // second…, and within the burst tenant its endpoints in turn. First come, first served took the
    // burst's eight oldest.
    const wide = await claim({ window: 400, perTenant: 1000 });
    assert.deepEqual(tenants(wide), ['burst', 'quiet', 'burst', 'quiet', 'burst', 'quiet', 'burst', 'burst']);
    const endpoints = wide.filter((r) => r.tenant === burst).map((r) => r.endpoint_id);
    for (let i = 1; i < endpoints.length; i++)
      assert.notEqual(endpoints[i], endpoints[i - 1], endpoints.join());
    assert.ok(endpoints.every((e) => e === a.endpoint.id || e === b.endpoint.id));
    await db.sql.query(
      `update "${db.schema}".webhook_deliveries set lease_until = null, locked_by = null, attempts = 0
        where locked_by = 'interleave'`,
    );
    // The default window (200 rows) sees only the burst: it gets its 4 slots; the next claim skips the
    // full tenant and reaches the quiet one's rows behind the rest of the burst.
    const first = await claim({ window: 200, perTenant: 4 });
    assert.deepEqual(tenants(first), ['burst', 'burst', 'burst', 'burst']);
    const next = await claim({ window: 200, perTenant: 4, mine: first });
    assert.deepEqual(tenants(next), ['quiet', 'quiet', 'quiet']);
  });
});

/** A receiver that never answers: it holds every request until the sender gives up (or `close`). */
async function hangingReceiver() {
  const open = new Map<string, number>();
  let total = 0;
  let maxTotal = 0;
  const maxPerPath = new Map<string, number>();
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    open.set(path, (open.get(path) ?? 0) + 1);
    maxPerPath.set(path, Math.max(maxPerPath.get(path) ?? 0, open.get(path)!));
    maxTotal = Math.max(maxTotal, ++total);
    res.on('close', () => {
      open.set(path, open.get(path)! - 1);
      total--;
    });
    req.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}/${path}`,
    get open() {
      return total;
    },
    get maxTotal() {
      return maxTotal;
    },
    get maxPerPath() {
      return Math.max(0, ...maxPerPath.values());
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe('attempts in flight', { skip: needsPostgres }, () => {
  beforeEach(() => void tenantN++);
  afterEach(cleanup);

  test("a tenant's hanging receivers hold at most its slots, across two workers; another tenant's delivery stays fast", async (t) => {
    const hostile = `hostile${tenantN}`;
    const victim = `victim${tenantN}`;
    const hang = await hangingReceiver();
    receivers.push(hang);
    const ok = await startReceiver();
    receivers.push(ok);
    // 40 endpoints, 3 events: 120 attempts that each hang until the worker's timeout (5 s).
    for (let i = 0; i < 40; i++)
      await webhooks.createEndpoint(db.sql, { tenant: hostile, url: hang.url(`e${i}`), eventTypes: ['*'] });
    await backlog(hostile, 3);
    await webhooks.createEndpoint(db.sql, { tenant: victim, url: ok.url, eventTypes: ['*'] });
    // Two workers on two pools (as two processes would be), 16 slots each: without caps the hostile
    // tenant's 120 attempts take all 32, and the victim's delivery waits behind them for a timeout.
    const other = new Webhooks({
      sql: db.connect(4),
      schema: db.schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
    });
    const caps = { concurrency: 16, maxInFlightPerTenant: 8, maxInFlightPerEndpoint: 2, timeoutMs: 5000 };
    const a = worker({ ...caps, pollIntervalMs: 50 });
    const b = worker({ ...caps, pollIntervalMs: 50, webhooks: other });
    await Promise.all([a.start(), b.start()]);
    const deadline = Date.now() + 3000;
    while (hang.open < 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(hang.open >= 8, 'the hostile tenant fills its slots');
    const started = Date.now();
    await db.sql.transaction((tx) =>
      webhooks.publish(tx, { tenant: victim, type: 'order.created', data: {} }),
    );
    await ok.waitFor(1, 10_000);
    const tookMs = Date.now() - started;
    t.diagnostic(`the victim's delivery took ${tookMs} ms`);
    assert.ok(
      tookMs < 2000,
      `the victim's delivery took ${tookMs} ms behind hanging receivers (timeout 5 s)`,
    );
    // Let the first round time out and the next claims run: the caps held throughout.
    await new Promise((r) => setTimeout(r, 5500));
    assert.ok(hang.maxTotal <= 8, `${hang.maxTotal} hostile attempts in flight at once, cap 8`);
    assert.ok(hang.maxPerPath <= 2, `${hang.maxPerPath} attempts at one endpoint at once, cap 2`);
    assert.ok(hang.open > 0, 'the hostile tenant still gets its share');
  });
});
