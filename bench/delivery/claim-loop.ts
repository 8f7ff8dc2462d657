// The drain's database side, without HTTP (issue 35): a backlog published through the outbox, then
// claimed in batches of 100 (the worker's claim: pick and take, in its transaction) and completed as
// delivered (the worker's completion statement, with an attempt row each), until nothing is due.
// Side by side in one run, on two schemas, rounds alternating:
//   surety     the product as it is
//   baseline   the same code with the deliveries' partitions at fillfactor 80 and the claim's COMMIT
//              waiting for its WAL flush (synchronous_commit on): the claim before session 16
// Per delivery: PostgreSQL's CPU (its processes, from /proc), the drain's wall time, the WAL written
// (pg_current_wal_lsn), and at the end the deliveries' heap and index sizes. No receiver, no worker
// CPU: what the database does is the part this measures, where bench/delivery's figures mix it with
// the machine's two cores shared by the worker, the receiver and PostgreSQL.
// Prints markdown, then `RESULT {json}` for bench/run.ts.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/delivery/claim-loop.ts [--quick]
import { createPgSql, type Sql } from '@surety/db';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { claimOnce, webhooksInternals } from '@surety/webhooks/testing';
import { cpuDelta, cpuSnapshot, postgresServer } from '../lib/cpu.js';
import { emitResult } from '../lib/result.js';
import { adminQuery, args, median, requireDatabaseUrl } from '../lib/stats.js';
import { completeDelivered, publishBacklog } from './drain.js';

const a = args();
const N = a.num('events', a.quick ? 5000 : 20000);
const ROUNDS = a.quick ? 1 : 3;
const BATCH = 100;
const url = requireDatabaseUrl(
  'the benchmark creates and drops schemas bench_claim_surety, bench_claim_baseline',
);
const postgres = await postgresServer(url);
const groups = (cmdline: string, pid: number, ppid: number) =>
  pid === process.pid ? 'bench' : postgres(cmdline, pid, ppid);

interface Variant {
  name: 'surety' | 'baseline';
  schema: string;
  sql: Sql;
  webhooks: Webhooks;
  /** What the claim's transaction begins with. */
  first: string;
}

async function variant(name: Variant['name']): Promise<Variant> {
  const schema = `bench_claim_${name}`;
  await adminQuery(url, `drop schema if exists ${schema} cascade`);
  const sql = createPgSql({ connectionString: url, max: 4 });
  const webhooks = new Webhooks({ sql, schema, allowHttp: true, allowList: parseAllowList('127.0.0.1/32') });
  await webhooks.migrate();
  // The windows the service keeps ahead, as in production (the take is planned for its windows).
  await webhooks.maintain({ retentionDays: 30 });
  await webhooks.createEndpoint(sql, { tenant: 'bench', url: 'http://127.0.0.1:9/none', eventTypes: ['*'] });
  const { claimSettings } = webhooksInternals(webhooks).st;
  if (name === 'baseline')
    await adminQuery(
      url,
      `do $$ declare p record; begin
         for p in select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
                   where i.inhparent = '${schema}.webhook_deliveries'::regclass
         loop execute format('alter table ${schema}.%I set (fillfactor = 80)', p.relname); end loop;
       end $$`,
    );
  const first = name === 'baseline' ? `${claimSettings}; set local synchronous_commit = on` : claimSettings;
  return { name, schema, sql, webhooks, first };
}

async function publish(v: Variant) {
  await publishBacklog(v.sql, v.webhooks, N);
}

const walLsn = async (sql: Sql) =>
  (await sql.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]!.lsn;
const walBytes = async (sql: Sql, from: string) =>
  Number(
    (await sql.query<{ b: string }>('select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::text as b', [from]))
      .rows[0]!.b,
  );

/** Claims and completes until nothing is due; per delivery: PostgreSQL's CPU, wall time and WAL. */
async function drain(v: Variant) {
  const lsn = await walLsn(v.sql);
  const before = cpuSnapshot(groups);
  const started = performance.now();
  let n = 0;
  for (let claims = 0; claims < (2 * N) / BATCH + 10; claims++) {
    const now = Date.now();
    const { rows } = await v.sql.transaction(
      (tx) =>
        claimOnce(tx, v.webhooks, [
          new Date(now).toISOString(),
          BATCH,
          new Date(now + 60_000).toISOString(),
          'bench',
          200,
          100_000,
          100_000,
          [],
          [],
          [],
        ]),
      { first: v.first },
    );
    if (rows.length === 0) break;
    n += rows.length;
    await completeDelivered(v.sql, v.webhooks, 'bench', rows);
  }
  const wallUs = ((performance.now() - started) * 1000) / n;
  const cpu = cpuDelta(before, cpuSnapshot(groups));
  const wal = await walBytes(v.sql, lsn);
  if (n !== N) throw new Error(`${v.name}: drained ${n} of ${N}`);
  return { pgUs: ((cpu?.postgres ?? Number.NaN) * 1000) / n, wallUs, walBytes: wal / n };
}

const variants = [await variant('surety'), await variant('baseline')];
const runs: Record<string, { pgUs: number[]; wallUs: number[]; walBytes: number[] }> = {
  surety: { pgUs: [], wallUs: [], walBytes: [] },
  baseline: { pgUs: [], wallUs: [], walBytes: [] },
};
for (let r = 0; r < ROUNDS + 1; r++) {
  for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
    await publish(v);
    const m = await drain(v);
    console.error(
      `${v.name}: PostgreSQL ${m.pgUs.toFixed(0)} µs, wall ${m.wallUs.toFixed(0)} µs, WAL ${m.walBytes.toFixed(0)} B per delivery${r === 0 ? ' (warm-up)' : ''}`,
    );
    if (r === 0) continue;
    runs[v.name]!.pgUs.push(m.pgUs);
    runs[v.name]!.wallUs.push(m.wallUs);
    runs[v.name]!.walBytes.push(m.walBytes);
  }
}
const size: Record<string, { heap: number; indexes: number }> = {};
for (const v of variants) {
  await v.sql.query(`vacuum ${v.schema}.webhook_deliveries`);
  const { rows } = await v.sql.query<{ heap: string; indexes: string }>(
    `select sum(pg_relation_size(c.oid))::text as heap, sum(pg_indexes_size(c.oid))::text as indexes
       from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = $1::regclass`,
    [`${v.schema}.webhook_deliveries`],
  );
  size[v.name] = { heap: Number(rows[0]!.heap), indexes: Number(rows[0]!.indexes) };
  await v.sql.close();
  await adminQuery(url, `drop schema if exists ${v.schema} cascade`);
}

const med = (name: string, k: 'pgUs' | 'wallUs' | 'walBytes') => median(runs[name]![k]);
const ratio = (k: 'pgUs' | 'wallUs' | 'walBytes') => med('surety', k) / med('baseline', k);
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
console.log(`| ${N} deliveries claimed 100 at a time and completed, no HTTP | surety | baseline | ratio |`);
console.log('|---|---:|---:|---:|');
console.log(
  `| PostgreSQL CPU per delivery (µs) | ${med('surety', 'pgUs').toFixed(0)} | ${med('baseline', 'pgUs').toFixed(0)} | ${ratio('pgUs').toFixed(2)} |`,
);
console.log(
  `| drain wall time per delivery (µs) | ${med('surety', 'wallUs').toFixed(0)} | ${med('baseline', 'wallUs').toFixed(0)} | ${ratio('wallUs').toFixed(2)} |`,
);
console.log(
  `| WAL per delivery (bytes) | ${med('surety', 'walBytes').toFixed(0)} | ${med('baseline', 'walBytes').toFixed(0)} | ${ratio('walBytes').toFixed(2)} |`,
);
console.log(
  `| deliveries' heap after ${ROUNDS + 1} drains, vacuumed (MB) | ${mb(size.surety!.heap)} | ${mb(size.baseline!.heap)} | ${(size.surety!.heap / size.baseline!.heap).toFixed(2)} |`,
);
console.log(
  `| deliveries' indexes (MB) | ${mb(size.surety!.indexes)} | ${mb(size.baseline!.indexes)} | ${(size.surety!.indexes / size.baseline!.indexes).toFixed(2)} |`,
);
console.log(
  `\nbaseline: the deliveries' partitions at fillfactor 80 and the claim's COMMIT waiting for its WAL flush; ${ROUNDS} round(s) after a warm-up, order alternating, medians`,
);
emitResult({
  bench: 'claim-loop',
  metrics: [
    { name: 'surety.postgres_us', value: med('surety', 'pgUs'), unit: 'µs' },
    { name: 'baseline.postgres_us', value: med('baseline', 'pgUs'), unit: 'µs' },
    { name: 'surety.wall_us', value: med('surety', 'wallUs'), unit: 'µs' },
    { name: 'baseline.wall_us', value: med('baseline', 'wallUs'), unit: 'µs' },
    { name: 'surety.wal_bytes', value: med('surety', 'walBytes'), unit: 'bytes' },
    { name: 'baseline.wal_bytes', value: med('baseline', 'walBytes'), unit: 'bytes' },
  ],
  ratios: [
    {
      name: 'claim_loop.postgres_cpu',
      value: ratio('pgUs'),
      target: 1,
      op: '<=',
      what: "PostgreSQL's CPU per delivery, claim + completion, ÷ the claim before session 16",
    },
    {
      name: 'claim_loop.wall',
      value: ratio('wallUs'),
      target: 1,
      op: '<=',
      what: 'drain wall time per delivery ÷ the claim before session 16',
    },
    {
      name: 'claim_loop.wal',
      value: ratio('walBytes'),
      what: 'WAL per delivery ÷ the claim before session 16',
    },
    {
      name: 'claim_loop.heap',
      value: size.surety!.heap / size.baseline!.heap,
      what: "the deliveries' heap after the drains ÷ at fillfactor 80",
    },
  ],
});
process.exit(0);
