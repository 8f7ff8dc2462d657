// A design probe for issue 35, not a benchmark of the product: what would a narrow queue table of the
// pending rows save PostgreSQL per delivery? The design (decisions.md, "Session 19" and "Session 20"):
// each pending delivery's due time and lease in a table of its own, so that the claim reads and
// updates narrow rows and the completion deletes the queue row and updates the delivery where no
// index mentions `status` or `next_attempt_at` (a HOT update, no index entries). The drain's
// database side (as claim-loop.ts: a published backlog, claims of 100, completed as delivered with an
// attempt row each, no HTTP), three ways side by side, rounds alternating:
//   surety   the product's claim (pick and take, fairness caps and FIFO) and completion
//   simple   the same tables, claimed by the simplest claim there is (a skip-locked update of the due
//            index's head: no caps, no FIFO, no interleaving), the product's completion
//   queue    the simplest claim on a narrow queue table (fillfactor 50, its due and FIFO indexes); the
//            deliveries without their three status indexes; a completion that deletes the queue rows,
//            updates the deliveries and inserts the attempts in one statement
// surety ÷ simple is what the claim's guarantees cost; queue ÷ simple is what the narrow table alone
// saves. Per delivery: PostgreSQL's CPU for the whole drain (/proc), the completion statement's wall
// time, and the share of the deliveries' updates that were HOT (pg_stat_user_tables).
// Prints markdown. Loopback only; bounded in count (N per round, claims ≤ 2 N / 100 + 10).
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/delivery/queue-probe.ts [--quick]

import { randomBytes } from 'node:crypto';
import { createPgSql, type Sql } from '@surety/db';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { claimOnce, idTimePrefix, webhooksInternals } from '@surety/webhooks/testing';
import { cpuDelta, cpuSnapshot, postgresServer } from '../lib/cpu.js';
import { adminQuery, args, median, requireDatabaseUrl } from '../lib/stats.js';
import { type ClaimedRow, completeDelivered, publishBacklog } from './drain.js';

const a = args();
const N = a.num('events', a.quick ? 5000 : 20000);
const ROUNDS = a.quick ? 1 : 3;
const BATCH = 100;
const url = requireDatabaseUrl('the probe creates and drops schemas bench_queue_surety, _simple and _queue');
const postgres = await postgresServer(url);
const groups = (cmdline: string, pid: number, ppid: number) =>
  pid === process.pid ? 'bench' : postgres(cmdline, pid, ppid);

type Name = 'surety' | 'simple' | 'queue';
interface Variant {
  name: Name;
  schema: string;
  sql: Sql;
  webhooks: Webhooks;
}
interface Claimed extends ClaimedRow {
  type?: string | null;
}

async function variant(name: Name): Promise<Variant> {
  const schema = `bench_queue_${name}`;
  await adminQuery(url, `drop schema if exists ${schema} cascade`);
  const sql = createPgSql({ connectionString: url, max: 2 });
  const webhooks = new Webhooks({ sql, schema, allowHttp: true, allowList: parseAllowList('127.0.0.1/32') });
  await webhooks.migrate();
  await webhooks.maintain({ retentionDays: 30 });
  await webhooks.createEndpoint(sql, { tenant: 'bench', url: 'http://127.0.0.1:9/none', eventTypes: ['*'] });
  if (name === 'queue') {
    for (const index of ['due', 'endpoint_pending', 'poll_unread'])
      await sql.query(`drop index ${schema}.webhook_deliveries_${index}`);
    await sql.query(
      `create table ${schema}.webhook_queue (id text collate "C" primary key, tenant text not null,
         endpoint_id text not null, sequence bigint, next_attempt_at timestamptz not null, locked_by text,
         lease_until timestamptz) with (fillfactor = 50)`,
    );
    await sql.query(`create index webhook_queue_due on ${schema}.webhook_queue (next_attempt_at)`);
    await sql.query(
      `create index webhook_queue_fifo on ${schema}.webhook_queue (tenant, endpoint_id, sequence, id)`,
    );
  }
  return { name, schema, sql, webhooks };
}

async function publish(v: Variant) {
  await publishBacklog(v.sql, v.webhooks, N);
  // The queue's rows as publish would write them beside the deliveries (not timed, as publish is not).
  if (v.name === 'queue')
    await v.sql.query(
      `insert into ${v.schema}.webhook_queue (id, tenant, endpoint_id, sequence, next_attempt_at)
       select id, tenant, endpoint_id, sequence, next_attempt_at from ${v.schema}.webhook_deliveries
        where status = 'pending'`,
    );
  await v.sql.query(`vacuum analyze ${v.schema}.webhook_deliveries`);
  if (v.name === 'queue') await v.sql.query(`vacuum analyze ${v.schema}.webhook_queue`);
}

/**
 * The simplest claim: the due index's head, skip-locked, leased, and each row returned with its
 * event's type and data (the worker needs them; the product's take reads them too). On the queue,
 * the claimed rows' deliveries are read by primary key for their event and attempts. Without the
 * WAL flush at COMMIT, as the product's claim.
 */
function simpleClaim(v: Variant, now: number) {
  const D = `${v.schema}.webhook_deliveries`;
  const queue = v.name === 'queue';
  const table = queue ? `${v.schema}.webhook_queue` : D;
  const claimed = queue
    ? `c as (update ${table} t set locked_by = 'probe', lease_until = $2 where t.id in (select id from due)
               returning t.id),
       d as (select x.id, x.tenant, x.endpoint_id, x.attempts + 1 as attempts, x.event_id, x.event_created_at,
                    x.created_at from c join ${D} x on x.id = c.id)`
    : `d as (update ${table} t set locked_by = 'probe', lease_until = $2, attempts = t.attempts + 1
               where t.id in (select id from due)
               returning t.id, t.tenant, t.endpoint_id, t.attempts, t.event_id, t.event_created_at, t.created_at)`;
  return v.sql.transaction(
    (tx) =>
      tx.query<Claimed>(
        {
          name: `probe_claim_${v.name}`,
          text: `with due as (
                   select id from ${table} where ${queue ? '' : `status = 'pending' and`} next_attempt_at <= $1
                      and (lease_until is null or lease_until <= $1)
                    order by next_attempt_at limit ${BATCH} for update skip locked),
                 ${claimed}
                 select d.id, d.tenant, d.endpoint_id, d.attempts, ev.type, ev.data
                   from d left join lateral (select * from ${v.schema}.webhook_events e
                                              where e.tenant = d.tenant and e.id = d.event_id
                                                and e.created_at >= coalesce(d.event_created_at, '-infinity')
                                                and e.created_at <= coalesce(d.event_created_at, d.created_at)
                                              limit 1) ev on true`,
        },
        [new Date(now).toISOString(), new Date(now + 60_000).toISOString()],
      ),
    { first: 'set local synchronous_commit = off' },
  );
}

async function productClaim(v: Variant, now: number) {
  const { claimSettings } = webhooksInternals(v.webhooks).st;
  const iso = (ms: number) => new Date(ms).toISOString();
  return v.sql.transaction(
    (tx) =>
      claimOnce(tx, v.webhooks, [iso(now), BATCH, iso(now + 60_000), 'probe', 200, 1e5, 1e5, [], [], []]),
    { first: claimSettings },
  );
}

/** An attempt's id as the worker makes it (time prefix and 14 random characters), not PostgreSQL's function. */
const attemptId = (at: string) =>
  idTimePrefix('att', Date.parse(at)) +
  randomBytes(14).toString('base64url').replace(/[-_]/g, 'x').slice(0, 14);

/** The queue design's completion (delivered outcomes only: what the drain writes). */
const queueComplete = (schema: string) => ({
  name: 'probe_complete_queue',
  text: `with r as (
           select e->>0 as id, (e->>1)::int as http_status from jsonb_array_elements($2::text::jsonb) e),
         gone as (
           delete from ${schema}.webhook_queue q where q.id = any ($3::text[]) and q.locked_by = $4 returning q.id),
         upd as (
           update ${schema}.webhook_deliveries d set status = 'delivered', completed_at = $1::timestamptz,
                  attempts = d.attempts + 1, last_status = r.http_status, last_error = null
             from r join gone g on g.id = r.id where d.id = r.id and d.id = any ($3::text[])
           returning d.id),
         att as (
           insert into ${schema}.webhook_attempts (delivery_id, tenant, attempt, started_at, duration_ms, status, endpoint_id, id)
           select e->>0, e->>1, (e->>2)::int, (e->>3)::timestamptz, 2, (e->>4)::int, e->>5, e->>6
             from jsonb_array_elements($5::text::jsonb) e returning 1)
         select (select count(*) from upd)::int as completed, (select count(*) from att)::int as attempts`,
});

async function complete(v: Variant, rows: Claimed[]): Promise<number> {
  const at = new Date().toISOString();
  return v.sql.transaction(async (tx) => {
    const started = performance.now();
    if (v.name === 'queue') {
      const { rows: done } = await tx.query<{ completed: number }>(queueComplete(v.schema), [
        at,
        JSON.stringify(rows.map((r) => [r.id, 204])),
        rows.map((r) => r.id),
        'probe',
        JSON.stringify(rows.map((r) => [r.id, r.tenant, r.attempts, at, 204, r.endpoint_id, attemptId(at)])),
      ]);
      if (done[0]!.completed !== rows.length)
        throw new Error(`queue: completed ${done[0]!.completed} of ${rows.length}`);
    } else {
      const done = await completeDelivered(tx, v.webhooks, 'probe', rows);
      if (done.completed !== rows.length)
        throw new Error(`${v.name}: completed ${done.completed} of ${rows.length}`);
    }
    return performance.now() - started;
  });
}

const updates = async (v: Variant) => {
  // Each backend flushes its statistics when it goes idle, at most once a second: a second later, a
  // statement on each of the pool's two connections makes both flush.
  await new Promise((r) => setTimeout(r, 1200));
  await Promise.all([v.sql.query('select pg_sleep(0.1)'), v.sql.query('select pg_sleep(0.1)')]);
  const { rows } = await v.sql.query<{ n: string; hot: string }>(
    `select coalesce(sum(n_tup_upd), 0)::text as n, coalesce(sum(n_tup_hot_upd), 0)::text as hot
       from pg_stat_user_tables where schemaname = $1 and relname like 'webhook_deliveries%'`,
    [v.schema],
  );
  return { n: Number(rows[0]!.n), hot: Number(rows[0]!.hot) };
};

async function drain(v: Variant) {
  const u0 = await updates(v);
  const before = cpuSnapshot(groups);
  let n = 0;
  let completeMs = 0;
  for (let claims = 0; claims < (2 * N) / BATCH + 10; claims++) {
    const now = Date.now();
    const { rows } = v.name === 'surety' ? await productClaim(v, now) : await simpleClaim(v, now);
    if (rows.length === 0) break;
    if (v.name !== 'surety' && rows.some((r) => r.type !== 'order.created'))
      throw new Error(`${v.name}: a row without its event`);
    completeMs += await complete(v, rows);
    n += rows.length;
  }
  const cpu = cpuDelta(before, cpuSnapshot(groups));
  if (n !== N) throw new Error(`${v.name}: drained ${n} of ${N}`);
  const u1 = await updates(v);
  if (process.env.PROBE_DEBUG) console.error(u0, u1);
  return {
    pgUs: ((cpu?.postgres ?? Number.NaN) * 1000) / n,
    completeUs: (completeMs * 1000) / n,
    hot: (u1.hot - u0.hot) / Math.max(1, u1.n - u0.n),
  };
}

const variants = [await variant('surety'), await variant('simple'), await variant('queue')];
const runs = new Map<Name, { pgUs: number[]; completeUs: number[]; hot: number[] }>(
  variants.map((v) => [v.name, { pgUs: [], completeUs: [], hot: [] }]),
);
for (let r = 0; r < ROUNDS + 1; r++) {
  for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
    await publish(v);
    const m = await drain(v);
    console.error(
      `${v.name}: PostgreSQL ${m.pgUs.toFixed(1)} µs, completion ${m.completeUs.toFixed(1)} µs per delivery, HOT ${(m.hot * 100).toFixed(0)} %${r === 0 ? ' (warm-up)' : ''}`,
    );
    if (r === 0) continue;
    const x = runs.get(v.name)!;
    x.pgUs.push(m.pgUs);
    x.completeUs.push(m.completeUs);
    x.hot.push(m.hot);
  }
}
for (const v of variants) {
  await v.sql.close();
  await adminQuery(url, `drop schema if exists ${v.schema} cascade`);
}

const med = (name: Name, k: 'pgUs' | 'completeUs' | 'hot') => median(runs.get(name)![k]);
const row = (what: string, k: 'pgUs' | 'completeUs', digits = 1) =>
  `| ${what} | ${med('surety', k).toFixed(digits)} | ${med('simple', k).toFixed(digits)} | ${med('queue', k).toFixed(digits)} | ${(med('surety', k) / med('simple', k)).toFixed(2)} | ${(med('queue', k) / med('simple', k)).toFixed(2)} |`;
console.log(
  `| ${N} deliveries claimed 100 at a time and completed, no HTTP | surety | simple | queue | surety ÷ simple | queue ÷ simple |`,
);
console.log('|---|---:|---:|---:|---:|---:|');
console.log(row("PostgreSQL's CPU per delivery, claim + completion (µs)", 'pgUs'));
console.log(row("the completion statement's wall time per delivery (µs)", 'completeUs'));
console.log(
  `| the deliveries' updates that were HOT | ${(med('surety', 'hot') * 100).toFixed(0)} % | ${(med('simple', 'hot') * 100).toFixed(0)} % | ${(med('queue', 'hot') * 100).toFixed(0)} % | | |`,
);
console.log(`\n${ROUNDS} round(s) after a warm-up, order alternating, medians`);
process.exit(0);
