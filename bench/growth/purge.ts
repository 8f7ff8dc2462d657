// Purge while serving: 1 million expired keys purged (Idempotency.purgeExpired) while new keys are
// served 4 at a time; serving p50/p99 before, during, and in the seconds after the purge (when
// autovacuum comes for the dead rows), with the WAL the purge wrote (pg_stat_wal). bench/growth/run.ts
// runs it once with the defaults; run alone, it compares settings side by side, rounds alternating:
//
//   node --conditions=@surety/source --import tsx bench/growth/purge.ts [--rounds 2] [--variants main,default]
//     [--keys 1000000] [--before-ms 6000] [--wal-compression lz4]
//
// Variants: `default` (purgeExpired's defaults), `main` (the purge before issue 22, its loop and
// statement copied here: 500 rows a batch, a rest as long as the batch, synchronous commit), or `name=batchSize:100/dutyCycle:0.1/
// asyncCommit:false` for any other options. Without DATABASE_URL it starts its own cluster
// (bench/lib/cluster.ts, 1 GB shared_buffers) and removes it at the end.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createPgSql, type Sql } from '@surety/db';
import { createIdempotency, type PurgeOptions } from '@surety/idempotency';
import { percentile } from '../lib/stats.js';
import { ensureKeys } from './load.js';

export const PURGE_VARIANTS: Record<string, PurgeOptions | 'main'> = {
  default: {},
  main: 'main',
};

/**
 * The purge as it was before issue 22 (packages/idempotency/src/purge.ts at 7c929fb), for the
 * side-by-side: 500 rows a batch from the oldest entry of the expires_at index, synchronous commit,
 * a rest as long as the batch took.
 */
async function purgeAsOnMain(sql: Sql, schema: string): Promise<number> {
  const t = `"${schema}".idempotency_keys`;
  const text = `delete from ${t} where ctid = any (array(
                  select ctid from ${t} where expires_at <= $1::timestamptz
                   order by expires_at limit $2 for update skip locked))`;
  let total = 0;
  for (let i = 0; i < 10_000; i++) {
    const started = performance.now();
    const { rowCount } = await sql.query(text, [new Date().toISOString(), 500]);
    total += rowCount;
    if (rowCount < 500) break;
    const pause = performance.now() - started;
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
  }
  return total;
}

export interface PurgeRun {
  variant: string;
  purged: number;
  seconds: number;
  before: number[];
  during: number[];
  after: number[];
  wal?: { records: number; fpi: number; bytes: number; syncs: number };
  /** CPU ms of the purge's own backend (from /proc; undefined on a server elsewhere). */
  purgeCpuMs?: number;
  /** Autovacuum of the key table started during the purge (its dead rows reached the threshold). */
  autovacuumedDuring: boolean;
  /** …or by the end of the after-window. */
  autovacuumed: boolean;
}

const respond = async () => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
});

/** utime + stime of a local process, ms (USER_HZ 100), or undefined. */
function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function autovacuums(sql: Sql, schema: string): Promise<number> {
  // a vacuum in progress counts: pg_stat_progress_vacuum lists it before autovacuum_count moves
  const { rows } = await sql.query<{ n: string }>(
    `select (coalesce((select autovacuum_count from pg_stat_user_tables where schemaname = $1 and relname = 'idempotency_keys'), 0)
           + (select count(*) from pg_stat_progress_vacuum where relid = ($1 || '.idempotency_keys')::regclass))::text as n`,
    [schema],
  );
  return Number(rows[0]!.n);
}

async function walStats(sql: Sql) {
  const { rows } = await sql
    .query<{ records: string; fpi: string; bytes: string; syncs: string }>(
      'select wal_records::text as records, wal_fpi::text as fpi, wal_bytes::text as bytes, wal_sync::text as syncs from pg_stat_wal',
    )
    .catch(() => ({ rows: [] }));
  const r = rows[0];
  return r && { records: +r.records, fpi: +r.fpi, bytes: +r.bytes, syncs: +r.syncs };
}

/**
 * Loads `keys` expired keys into a fresh schema, serves (4 at a time) for `beforeMs`, then purges
 * them with `options` while serving, then serves `afterMs` more. The schema is dropped at the end.
 */
export async function purgeWhileServing(
  url: string,
  variant: string,
  options: PurgeOptions | 'main',
  p: { keys?: number; beforeMs?: number; afterMs?: number; log?: (s: string) => void } = {},
): Promise<PurgeRun & { loadSeconds: number }> {
  const keys = p.keys ?? 1_000_000;
  const log = p.log ?? (() => {});
  const schema = 'bench_growth_purge';
  const sql = createPgSql({ connectionString: url, max: 6 });
  const purgeSql = createPgSql({ connectionString: url, max: 1 });
  try {
    await sql.query(`drop schema if exists ${schema} cascade`);
    // expired 2 h to 1 h ago, in the order they were written (keys made one after another)
    const load = await ensureKeys(url, schema, keys, -3600, log, 3600);
    const serving = createIdempotency({ sql, schema });
    const purger = createIdempotency({ sql: purgeSql, schema });
    const run = randomUUID().slice(0, 8);
    let served = 0;
    const serve = (ms: number, stopWhen?: () => boolean) => {
      const lat: number[] = [];
      const until = performance.now() + ms;
      return Promise.all(
        Array.from({ length: 4 }, async () => {
          while (performance.now() < until && !(stopWhen?.() ?? false)) {
            const t = performance.now();
            await serving.execute(
              { tenant: 'bench', key: `p-${run}-${served++}`, fingerprint: 'f' },
              respond,
            );
            lat.push(performance.now() - t);
          }
        }),
      ).then(() => lat);
    };
    // The load leaves a checkpoint's worth of dirty pages and WAL behind: checkpoint first, so the
    // before and during windows start in the same state rather than "before" catching the load's writes.
    await sql.query('checkpoint');
    await serve(1000); // warm-up
    const before = await serve(p.beforeMs ?? 3000);
    const wal0 = await walStats(sql);
    const { rows: pidRows } = await purgeSql.query<{ pid: number }>('select pg_backend_pid() as pid');
    const purgePid = pidRows[0]!.pid;
    const cpu0 = cpuMs(purgePid);
    const vacuums0 = await autovacuums(sql, schema);
    let vacuumedDuring = false;
    const watch = setInterval(() => {
      autovacuums(sql, schema).then(
        (n) => {
          if (n > vacuums0 && !purgeDone) vacuumedDuring = true;
        },
        () => {},
      );
    }, 1000);
    let purgeDone = false;
    const started = performance.now();
    const purging = (
      options === 'main'
        ? purgeAsOnMain(purgeSql, schema)
        : purger.purgeExpired({ maxBatches: 10_000, ...options })
    ).finally(() => {
      purgeDone = true;
    });
    const during = await serve(600_000, () => purgeDone);
    const purged = await purging;
    const seconds = (performance.now() - started) / 1000;
    clearInterval(watch);
    const wal1 = await walStats(sql);
    const cpu1 = cpuMs(purgePid);
    const after = await serve(p.afterMs ?? 5000);
    const vacuums1 = await autovacuums(sql, schema);
    log(
      `purge ${variant}: ${purged} rows in ${seconds.toFixed(1)} s; p99 before ${percentile(before, 99).toFixed(2)} during ${percentile(during, 99).toFixed(2)} after ${percentile(after, 99).toFixed(2)} ms`,
    );
    return {
      variant,
      purged,
      seconds,
      before,
      during,
      after,
      ...(wal0 && wal1
        ? {
            wal: {
              records: wal1.records - wal0.records,
              fpi: wal1.fpi - wal0.fpi,
              bytes: wal1.bytes - wal0.bytes,
              syncs: wal1.syncs - wal0.syncs,
            },
          }
        : {}),
      ...(cpu0 !== undefined && cpu1 !== undefined ? { purgeCpuMs: cpu1 - cpu0 } : {}),
      autovacuumedDuring: vacuumedDuring,
      autovacuumed: vacuums1 > vacuums0,
      loadSeconds: load.seconds,
    };
  } finally {
    await sql.query(`drop schema if exists ${schema} cascade`).catch(() => {});
    await purgeSql.close();
    await sql.close();
  }
}

/** `name=batchSize:100/dutyCycle:0.1/asyncCommit:false`, or a name in PURGE_VARIANTS. */
export function parseVariant(spec: string): [string, PurgeOptions | 'main'] {
  const known = PURGE_VARIANTS[spec];
  if (known) return [spec, known];
  const [name, body] = spec.split('=');
  if (!name || !body) throw new Error(`unknown purge variant ${spec}`);
  const options: Record<string, number | boolean> = {};
  for (const part of body.split('/')) {
    const [k, v] = part.split(':');
    if (!k || v === undefined) throw new Error(`bad option ${part} in ${spec}`);
    options[k] = v === 'true' ? true : v === 'false' ? false : Number(v);
  }
  return [name, options as PurgeOptions];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { args } = await import('../lib/stats.js');
  const a = args();
  const rounds = a.num('rounds', 2);
  const keys = a.num('keys', 1_000_000);
  const beforeMs = a.num('before-ms', 6000);
  const variants = (a.str('variants') ?? 'main,default').split(',').map(parseVariant);
  const load = loadavg()[0]!;
  let url = process.env.DATABASE_URL;
  let stop = () => {};
  if (!url) {
    const { startCluster } = await import('../lib/cluster.js');
    const walCompression = a.str('wal-compression');
    const cluster = await startCluster({
      sharedBuffersMB: 1024,
      ...(walCompression ? { settings: { wal_compression: walCompression } } : {}),
    });
    stop = () => cluster.stop();
    process.once('SIGINT', () => {
      stop();
      process.exit(130);
    });
    url = await cluster.createDatabase('bench');
  }
  const results: PurgeRun[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, options] of order)
        results.push(await purgeWhileServing(url, name, options, { keys, beforeMs, log: console.error }));
    }
  } finally {
    stop();
  }
  const f = (x: number) => x.toFixed(2);
  console.log(
    `Purge of ${keys.toLocaleString('en-US')} expired keys while serving new keys 4 at a time, ${rounds} rounds alternating; load average at start ${load.toFixed(1)}.\n`,
  );
  console.log(
    '| variant | round | purge s | rows/s | purge backend CPU (share of a core) | p99 before | p99 during | during ÷ before | p99 after ÷ before | WAL MB | FPI | WAL syncs | autovacuum during / by the end |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const seen: Record<string, number> = {};
  for (const r of results) {
    seen[r.variant] = (seen[r.variant] ?? 0) + 1;
    const b = percentile(r.before, 99);
    console.log(
      `| ${r.variant} | ${seen[r.variant]} | ${r.seconds.toFixed(1)} | ${(r.purged / r.seconds).toFixed(0)} | ${r.purgeCpuMs === undefined ? '–' : `${(r.purgeCpuMs / 1000).toFixed(1)} s (${((r.purgeCpuMs / 1000 / r.seconds) * 100).toFixed(0)}%)`} | ${f(b)} | ${f(percentile(r.during, 99))} | ${f(percentile(r.during, 99) / b)} | ${f(percentile(r.after, 99) / b)} | ${r.wal ? (r.wal.bytes / 2 ** 20).toFixed(0) : '–'} | ${r.wal?.fpi ?? '–'} | ${r.wal?.syncs ?? '–'} | ${r.autovacuumedDuring ? 'during' : r.autovacuumed ? 'after' : 'no'} |`,
    );
  }
}
