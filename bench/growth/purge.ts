// Purge while serving: 1 million expired keys purged (Idempotency.purgeExpired) while new keys are
// served 4 at a time; serving p50/p99 before, during, and in the seconds after the purge (when
// autovacuum comes for the dead rows), with the WAL the purge wrote (pg_stat_wal). The purge runs in
// rounds (3 by default), each a before-window and then a purge call for its share of the keys, so the
// ratio is the median of rounds, each against the window just before it, with the before-windows'
// A/A test beside it. bench/growth/run.ts runs it once with the defaults; run alone, it compares
// settings side by side, runs alternating:
//
//   node --conditions=@surety/source --import tsx bench/growth/purge.ts [--runs 2] [--variants main,default]
//     [--keys 1000000] [--rounds 3] [--before-ms 7000] [--wal-compression off]
//
// Variants: `default` (purgeExpired's defaults), `main` (the purge before issue 22, its loop and
// statement copied here: 500 rows a batch, a rest as long as the batch, synchronous commit), or `name=batchSize:100/dutyCycle:0.1/
// asyncCommit:false` for any other options (`s.wal_compression:off`: a server setting for that variant's
// runs, ALTER SYSTEM and reload). Without DATABASE_URL it starts its own cluster (bench/lib/cluster.ts,
// 1 GB shared_buffers) and removes it at the end.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createPgSql, type Sql } from '@surety/db';
import { createIdempotency, type PurgeOptions } from '@surety/idempotency';
import { PURGE_DEFAULTS } from '../../packages/idempotency/src/purge.js';
import { procStat } from '../lib/cpu.js';
import { median, percentile, roundRatios } from '../lib/stats.js';
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
async function purgeAsOnMain(sql: Sql, schema: string, maxRows: number): Promise<number> {
  const t = `"${schema}".idempotency_keys`;
  const text = `delete from ${t} where ctid = any (array(
                  select ctid from ${t} where expires_at <= $1::timestamptz
                   order by expires_at limit $2 for update skip locked))`;
  let total = 0;
  for (let i = 0; i < Math.ceil(maxRows / 500); i++) {
    const started = performance.now();
    const { rowCount } = await sql.query(text, [new Date().toISOString(), 500]);
    total += rowCount;
    if (rowCount < 500) break;
    const pause = performance.now() - started;
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
  }
  return total;
}

/** One round: serving alone, then serving while a purge call removes its share of the keys. */
export interface PurgeRound {
  /** Latencies of the before-window, without the requests that ended while the key table's vacuum ran. */
  before: number[];
  during: number[];
  purged: number;
  seconds: number;
  /** Requests of the before-window left out because the key table's vacuum (of an earlier round's rows) ran. */
  beforeWhileVacuum: number;
}

export interface PurgeRun {
  variant: string;
  purged: number;
  /** Seconds the purge calls took, summed over the rounds. */
  seconds: number;
  /** The rounds' windows, pooled. */
  before: number[];
  during: number[];
  after: number[];
  rounds: PurgeRound[];
  /** WAL written while the purge calls ran, summed over the rounds (serving's included). */
  wal?: { records: number; fpi: number; bytes: number; syncs: number };
  /** CPU ms of the purge's own backend while it ran (/proc, every 250 ms; undefined on a server elsewhere). */
  purgeCpuMs?: number;
  /** Autovacuum of the key table ran during a purge call (its dead rows reached the threshold). */
  autovacuumedDuring: boolean;
  /** …or by the end of the after-window. */
  autovacuumed: boolean;
  /** What the server did meanwhile (sampled every 250 ms; see `sampleServer`). */
  diag?: Diagnostics;
  /** Table storage parameters set on the key table after the load (variant `…/t.<name>:<value>`). */
  reloptions?: string;
  /** 1-minute load average when the before-window started. */
  load?: number;
}

/** CPU ms per server process kind, wait events of the serving backends, and the vacuum's timeline. */
export interface Diagnostics {
  /** CPU ms by process kind (serving backends, the purge backend, autovacuum worker, checkpointer, …) and phase. */
  cpu: Record<'before' | 'during' | 'after', Record<string, number>>;
  /** Seconds each phase lasted (for CPU shares). */
  phaseSeconds: Record<'before' | 'during' | 'after', number>;
  /** How often a serving backend was seen waiting, by wait event, during the purge. */
  waits: Record<string, number>;
  /** Samples taken of the serving backends during the purge (the denominator of `waits`). */
  waitSamples: number;
  /** Autovacuum (or vacuum) of the key table: seconds after the purge started, first and last seen. */
  vacuum?: { from: number; to: number; phases: string[] };
  /** p99 of the requests during the purge that ended while the key table's vacuum ran / did not. */
  p99WhileVacuum?: number;
  p99WithoutVacuum?: number;
  /** The top statements by total time during the purge (pg_stat_statements, when loaded). */
  statements: { query: string; calls: number; meanMs: number; maxMs: number; totalMs: number }[];
}

const respond = async () => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
});

/** The purge's connection, by name: its pool may replace it (idle timeout) during the before-window. */
const PURGE_APP = 'surety-bench-purge';

/** The server's processes by pid: kind as pg_stat_activity names it (client backends by role). */
async function serverProcesses(sql: Sql) {
  const { rows } = await sql.query<{
    pid: number;
    kind: string;
    app: string;
    wait: string | null;
    state: string | null;
    query: string | null;
  }>(
    `select pid, backend_type as kind, application_name as app, wait_event_type || ':' || wait_event as wait, state, query from pg_stat_activity`,
  );
  return rows.map(({ app, ...r }) => ({
    ...r,
    kind: app === PURGE_APP ? 'purge backend' : r.kind === 'client backend' ? 'serving backends' : r.kind,
  }));
}

/**
 * Samples every 250 ms, until stopped: CPU per server process kind (from /proc), what the serving
 * backends wait on, and when a vacuum of the key table runs. Phase is read from `phase()`.
 */
function sampleServer(
  url: string,
  schema: string,
  phase: () => 'before' | 'during' | 'after',
  t0: () => number,
) {
  const sql = createPgSql({ connectionString: url, max: 1 });
  const diag: Diagnostics = {
    cpu: { before: {}, during: {}, after: {} },
    phaseSeconds: { before: 0, during: 0, after: 0 },
    waits: {},
    waitSamples: 0,
    statements: [],
  };
  const vacuumAt: { t: number; on: boolean }[] = [];
  const last = new Map<number, number>();
  let stopped = false;
  let lastT = performance.now();
  let ownPid = -1;
  const loop = (async () => {
    ownPid = (await sql.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    for (let i = 0; i < 10_000 && !stopped; i++) {
      const ph = phase();
      const procs = await serverProcesses(sql).catch(() => []);
      const { rows: vac } = await sql
        .query<{ phase: string }>(
          `select phase from pg_stat_progress_vacuum where relid = ($1 || '.idempotency_keys')::regclass`,
          [schema],
        )
        .catch(() => ({ rows: [] as { phase: string }[] }));
      const now = performance.now();
      diag.phaseSeconds[ph] += (now - lastT) / 1000;
      lastT = now;
      for (const p of procs) {
        if (p.pid === ownPid) continue;
        const c = procStat(p.pid)?.ms;
        if (c === undefined) continue;
        const prev = last.get(p.pid);
        last.set(p.pid, c);
        if (prev !== undefined) diag.cpu[ph][p.kind] = (diag.cpu[ph][p.kind] ?? 0) + (c - prev);
        if (ph === 'during' && p.kind === 'serving backends' && p.state === 'active') {
          diag.waits[p.wait ?? 'CPU'] = (diag.waits[p.wait ?? 'CPU'] ?? 0) + 1;
        }
      }
      if (ph === 'during') diag.waitSamples++;
      const on = vac.length > 0;
      vacuumAt.push({ t: now, on });
      if (on) {
        const rel = (now - t0()) / 1000;
        diag.vacuum ??= { from: rel, to: rel, phases: [] };
        diag.vacuum.to = rel;
        if (!diag.vacuum.phases.includes(vac[0]!.phase)) diag.vacuum.phases.push(vac[0]!.phase);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    diag,
    /** Was the key table being vacuumed at time t (the nearest sample at or before it)? */
    vacuumAt(t: number): boolean {
      let on = false;
      for (const v of vacuumAt) {
        if (v.t > t) break;
        on = v.on;
      }
      return on;
    },
    async stop() {
      stopped = true;
      await loop.catch(() => {});
      await sql.close();
    },
  };
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
 * Loads `keys` expired keys into a fresh schema, then, `rounds` times, serves (4 at a time) for
 * `beforeMs` and purges its share of the keys with `options` while serving; then serves `afterMs`
 * more. The schema is dropped at the end.
 */
export async function purgeWhileServing(
  url: string,
  variant: string,
  options: PurgeOptions | 'main',
  p: {
    keys?: number;
    /** Rounds, each a before-window and a purge call for 1/rounds of the keys. @default 3 */
    rounds?: number;
    /** Each round's before-window. @default 7000 */
    beforeMs?: number;
    afterMs?: number;
    log?: (s: string) => void;
    /** Storage parameters for the key table, set after the load: `autovacuum_vacuum_cost_delay=10,…`. */
    reloptions?: string;
    /** Serving before the first before-window, after the checkpoint. @default 3000 */
    warmupMs?: number;
    /** A VACUUM of the key table right after the purge, before the after-window (its own session). */
    vacuumAfter?: boolean;
  } = {},
): Promise<PurgeRun & { loadSeconds: number }> {
  const keys = p.keys ?? 1_000_000;
  const rounds = p.rounds ?? 3;
  const log = p.log ?? (() => {});
  const schema = 'bench_growth_purge';
  const sql = createPgSql({ connectionString: url, max: 6 });
  const purgeSql = createPgSql({ connectionString: url, max: 1, applicationName: PURGE_APP });
  try {
    await sql.query(`drop schema if exists ${schema} cascade`);
    // expired 2 h to 1 h ago, in the order they were written (keys made one after another)
    const load = await ensureKeys(url, schema, keys, -3600, log, 3600);
    if (p.reloptions) await sql.query(`alter table ${schema}.idempotency_keys set (${p.reloptions})`);
    // As deployed: the development-only guard (warnOnEmptyTransaction, a statement and a console
    // warning per 2xx that wrote nothing, as every request here does) stays off.
    const serving = createIdempotency({ sql, schema, warnOnEmptyTransaction: false });
    const purger = createIdempotency({ sql: purgeSql, schema, warnOnEmptyTransaction: false });
    const run = randomUUID().slice(0, 8);
    let served = 0;
    const ends = new Map<number[], number[]>();
    const serve = (ms: number, stopWhen?: () => boolean) => {
      const lat: number[] = [];
      const end: number[] = [];
      ends.set(lat, end);
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
            end.push(performance.now());
          }
        }),
      ).then(() => lat);
    };
    // The load leaves a checkpoint's worth of dirty pages and WAL behind: checkpoint first, so the
    // before and during windows start in the same state rather than "before" catching the load's writes.
    await sql.query('checkpoint');
    // Warm-up: the first seconds after the checkpoint write a full-page image for every index leaf a
    // new key lands on first; measured in the before-window they made "before" the slower one.
    await serve(p.warmupMs ?? 3000);
    let phase: 'before' | 'during' | 'after' = 'before';
    let started = performance.now();
    const loadBefore = loadavg()[0]!;
    const sampler = sampleServer(
      url,
      schema,
      () => phase,
      () => started,
    );
    const statements = await sql
      .query('select pg_stat_statements_reset()')
      .then(() => true)
      .catch(() => false);
    const vacuums0 = await autovacuums(sql, schema);
    let vacuumedDuring = false;
    const watch = setInterval(() => {
      autovacuums(sql, schema).then(
        (n) => {
          if (n > vacuums0 && phase === 'during') vacuumedDuring = true;
        },
        () => {},
      );
    }, 1000);
    // Each call removes its share, oldest first, as the service's runs do (one per interval, each
    // bounded by maxBatches); the last one whatever is left.
    const batchSize = options === 'main' ? 500 : (options.batchSize ?? PURGE_DEFAULTS.batchSize);
    const share = Math.ceil(keys / rounds / batchSize);
    const raw: { before: number[]; during: number[]; purged: number; seconds: number }[] = [];
    const wal = { records: 0, fpi: 0, bytes: 0, syncs: 0 };
    let walSeen = true;
    for (let round = 0; round < rounds; round++) {
      phase = 'before';
      // Rounds after the first: a second unmeasured, so a before-window does not start inside the
      // last purge call's write-back.
      if (round > 0) await serve(1000);
      const before = await serve(p.beforeMs ?? 7000);
      const wal0 = await walStats(sql);
      let purgeDone = false;
      phase = 'during';
      const t = performance.now();
      if (round === 0) started = t; // the vacuum's timeline counts from the first call
      const maxBatches = round === rounds - 1 ? 10_000 : share;
      const purging = (
        options === 'main'
          ? purgeAsOnMain(purgeSql, schema, maxBatches * 500)
          : purger.purgeExpired({ maxBatches, ...options })
      ).finally(() => {
        purgeDone = true;
      });
      const during = await serve(600_000, () => purgeDone);
      const purged = await purging;
      const seconds = (performance.now() - t) / 1000;
      const wal1 = await walStats(sql);
      if (wal0 && wal1) {
        for (const k of ['records', 'fpi', 'bytes', 'syncs'] as const) wal[k] += wal1[k] - wal0[k];
      } else walSeen = false;
      raw.push({ before, during, purged, seconds });
      log(
        `purge ${variant} round ${round + 1}/${rounds}: ${purged} rows in ${seconds.toFixed(1)} s; p99 before ${percentile(before, 99).toFixed(2)} during ${percentile(during, 99).toFixed(2)} ms`,
      );
    }
    clearInterval(watch);
    phase = 'after';
    const diag = sampler.diag;
    if (statements) {
      const { rows } = await sql.query<{
        query: string;
        calls: string;
        mean: number;
        max: number;
        total: number;
      }>(
        `select left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query, calls::text, mean_exec_time as mean,
                max_exec_time as max, total_exec_time as total
           from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database())
          order by total_exec_time desc limit 8`,
      );
      diag.statements = rows.map((r) => ({
        query: r.query,
        calls: +r.calls,
        meanMs: r.mean,
        maxMs: r.max,
        totalMs: r.total,
      }));
    }
    const vacuumed = p.vacuumAfter ? purgeSql.query(`vacuum ${schema}.idempotency_keys`) : undefined;
    const after = await serve(p.afterMs ?? 5000);
    await vacuumed;
    await sampler.stop();
    const vacuums1 = await autovacuums(sql, schema);
    // The vacuum of an earlier round's dead rows may run in a later before-window: its requests are
    // left out of "before" (the ratio's denominator), never out of "during".
    const whileVacuum: number[] = [];
    const without: number[] = [];
    const done: PurgeRound[] = raw.map((r) => {
      const beforeEnds = ends.get(r.before)!;
      const before = r.before.filter((_, i) => !sampler.vacuumAt(beforeEnds[i]!));
      const duringEnds = ends.get(r.during)!;
      for (const [i, ms] of r.during.entries())
        (sampler.vacuumAt(duringEnds[i]!) ? whileVacuum : without).push(ms);
      return { ...r, before, beforeWhileVacuum: r.before.length - before.length };
    });
    if (whileVacuum.length > 0) diag.p99WhileVacuum = percentile(whileVacuum, 99);
    if (without.length > 0) diag.p99WithoutVacuum = percentile(without, 99);
    const before = done.flatMap((r) => r.before);
    const during = done.flatMap((r) => r.during);
    const purged = done.reduce((n, r) => n + r.purged, 0);
    const seconds = done.reduce((n, r) => n + r.seconds, 0);
    log(
      `purge ${variant}: ${purged} rows in ${seconds.toFixed(1)} s; during ÷ before by round ${roundRatios(
        done,
      )
        .ratios.map((x) => x.toFixed(2))
        .join(', ')}; p99 after ${percentile(after, 99).toFixed(2)} ms`,
    );
    return {
      variant,
      purged,
      seconds,
      before,
      during,
      after,
      rounds: done,
      ...(walSeen ? { wal } : {}),
      ...(diag.cpu.during['purge backend'] !== undefined
        ? { purgeCpuMs: diag.cpu.during['purge backend'] }
        : {}),
      autovacuumedDuring: vacuumedDuring,
      autovacuumed: vacuums1 > vacuums0,
      diag,
      load: loadBefore,
      ...(p.reloptions ? { reloptions: p.reloptions } : {}),
      loadSeconds: load.seconds,
    };
  } finally {
    await sql.query(`drop schema if exists ${schema} cascade`).catch(() => {});
    await purgeSql.close();
    await sql.close();
  }
}

export interface PurgeVariant {
  options: PurgeOptions | 'main';
  /** Key-table storage parameters (`t.<name>:<value>` in a spec). */
  reloptions?: string;
  /** VACUUM the key table after the purge (`vacuumAfter:true`). */
  vacuumAfter?: boolean;
  /** Server settings for this variant's runs (`s.<name>:<value>`), ALTER SYSTEM and reload. */
  settings?: Record<string, string>;
}

/**
 * `name=batchSize:100/dutyCycle:0.1/asyncCommit:false/t.autovacuum_vacuum_cost_delay:20/vacuumAfter:true/s.wal_compression:off`,
 * or a name in PURGE_VARIANTS.
 */
export function parseVariant(spec: string): [string, PurgeVariant] {
  const known = PURGE_VARIANTS[spec];
  if (known) return [spec, { options: known }];
  const [name, body] = spec.split('=');
  if (!name || !body) throw new Error(`unknown purge variant ${spec}`);
  const options: Record<string, number | boolean> = {};
  const rel: string[] = [];
  let vacuumAfter = false;
  const settings: Record<string, string> = {};
  for (const part of body.split('/')) {
    const [k, v] = part.split(':');
    if (!k || v === undefined) throw new Error(`bad option ${part} in ${spec}`);
    if (k.startsWith('t.')) {
      if (!/^[a-z_.]+$/.test(k.slice(2)) || !/^[0-9a-z.]+$/.test(v))
        throw new Error(`bad table option ${part}`);
      rel.push(`${k.slice(2)} = ${v}`);
    } else if (k.startsWith('s.')) {
      if (!/^[a-z_]+$/.test(k.slice(2)) || !/^[0-9a-z.]+$/.test(v)) throw new Error(`bad setting ${part}`);
      settings[k.slice(2)] = v;
    } else if (k === 'vacuumAfter') vacuumAfter = v === 'true';
    else options[k] = v === 'true' ? true : v === 'false' ? false : Number(v);
  }
  return [
    name,
    {
      options: options as PurgeOptions,
      ...(rel.length ? { reloptions: rel.join(', ') } : {}),
      ...(vacuumAfter ? { vacuumAfter } : {}),
      ...(Object.keys(settings).length ? { settings } : {}),
    },
  ];
}

/** A run's diagnostics, one markdown line each. */
export function describeDiagnostics(r: PurgeRun): string[] {
  const d = r.diag;
  if (!d) return [];
  const share = (ph: 'before' | 'during' | 'after') =>
    Object.entries(d.cpu[ph])
      .filter(([, ms]) => ms >= 50)
      .sort((a, b) => b[1] - a[1])
      .map(([k, ms]) => `${k} ${((ms / 1000 / Math.max(d.phaseSeconds[ph], 1e-9)) * 100).toFixed(0)}%`)
      .join(', ');
  const waits = Object.entries(d.waits)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `- ${r.variant}: server CPU (share of a core) before: ${share('before')}; during: ${share('during')}; after: ${share('after')}`,
    `  serving backends seen active during the purge (${d.waitSamples} samples): ${waits || 'none'}`,
    `  vacuum of the key table: ${d.vacuum ? `${d.vacuum.from.toFixed(1)}–${d.vacuum.to.toFixed(1)} s after the purge started (${d.vacuum.phases.join(' → ')}); p99 during while it ran ${d.p99WhileVacuum?.toFixed(2) ?? '–'} ms, while it did not ${d.p99WithoutVacuum?.toFixed(2) ?? '–'} ms` : 'not seen'}`,
    ...(d.statements.length
      ? [
          `  top statements during: ${d.statements
            .slice(0, 5)
            .map((q) => `[${q.calls}× mean ${q.meanMs.toFixed(2)} max ${q.maxMs.toFixed(1)} ms] ${q.query}`)
            .join(' | ')}`,
        ]
      : []),
  ];
}
if (import.meta.url === `file://${process.argv[1]}`) {
  const { args } = await import('../lib/stats.js');
  const a = args();
  const runs = a.num('runs', 2);
  const rounds = a.num('rounds', 3);
  const keys = a.num('keys', 1_000_000);
  const beforeMs = a.num('before-ms', 7000);
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
  // A variant's server settings, for its runs only: ALTER SYSTEM, reload, and back afterwards.
  const setServer = async (settings: Record<string, string>) => {
    const admin = createPgSql({ connectionString: url, max: 1 });
    try {
      const was: Record<string, string> = {};
      for (const [k, v] of Object.entries(settings)) {
        was[k] = (await admin.query<{ s: string }>('select current_setting($1) as s', [k])).rows[0]!.s;
        await admin.query(`alter system set ${k} = '${v}'`);
      }
      await admin.query('select pg_reload_conf()');
      await new Promise((r) => setTimeout(r, 500));
      return was;
    } finally {
      await admin.close();
    }
  };
  const results: PurgeRun[] = [];
  try {
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? variants : [...variants].reverse();
      for (const [name, v] of order) {
        const was = v.settings ? await setServer(v.settings) : undefined;
        try {
          results.push(
            await purgeWhileServing(url, name, v.options, {
              keys,
              rounds,
              beforeMs,
              log: console.error,
              ...(v.reloptions ? { reloptions: v.reloptions } : {}),
              ...(v.vacuumAfter ? { vacuumAfter: true } : {}),
            }),
          );
        } finally {
          if (was) await setServer(was);
        }
      }
    }
  } finally {
    stop();
  }
  const f = (x: number) => x.toFixed(2);
  console.log(
    `Purge of ${keys.toLocaleString('en-US')} expired keys while serving new keys 4 at a time, in ${rounds} rounds (a ${beforeMs / 1000} s before-window, then a purge call for its share); ${runs} runs alternating; load average at start ${load.toFixed(1)}.\n`,
  );
  console.log(
    '| variant | run | load | purge s | rows/s | purge backend CPU (share of a core) | requests before / during | p99 before (pooled) | p99 during (pooled) | during ÷ before by round | median | before halves (A/A) by round | before requests left out (vacuum) | p99 after ÷ before | WAL MB | FPI | WAL syncs | autovacuum during / by the end |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  const seen: Record<string, number> = {};
  for (const r of results) {
    seen[r.variant] = (seen[r.variant] ?? 0) + 1;
    const b = percentile(r.before, 99);
    const rr = roundRatios(r.rounds);
    console.log(
      `| ${r.variant} | ${seen[r.variant]} | ${r.load?.toFixed(1) ?? '–'} | ${r.seconds.toFixed(1)} | ${(r.purged / r.seconds).toFixed(0)} | ${r.purgeCpuMs === undefined ? '–' : `${(r.purgeCpuMs / 1000).toFixed(1)} s (${((r.purgeCpuMs / 1000 / r.seconds) * 100).toFixed(0)}%)`} | ${r.before.length} / ${r.during.length} | ${f(b)} | ${f(percentile(r.during, 99))} | ${rr.ratios.map(f).join(', ')} | ${f(rr.median)} | ${rr.aa.map(f).join(', ')} | ${r.rounds.reduce((n, x) => n + x.beforeWhileVacuum, 0)} | ${f(percentile(r.after, 99) / b)} | ${r.wal ? (r.wal.bytes / 2 ** 20).toFixed(0) : '–'} | ${r.wal?.fpi ?? '–'} | ${r.wal?.syncs ?? '–'} | ${r.autovacuumedDuring ? 'during' : r.autovacuumed ? 'after' : 'no'} |`,
    );
  }
  console.log(
    '\n| variant | runs | median of the runs’ medians | rounds: min–max | before halves (A/A): min–max | WAL MB | FPI |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name] of variants) {
    const rs = results.filter((r) => r.variant === name);
    const all = rs.flatMap((r) => r.rounds);
    const rr = roundRatios(all);
    const mb = rs.map((r) => (r.wal ? r.wal.bytes / 2 ** 20 : Number.NaN));
    console.log(
      `| ${name} | ${rs.length} | ${f(median(rs.map((r) => roundRatios(r.rounds).median)))} | ${f(rr.min)}–${f(rr.max)} | ${f(rr.aaMin)}–${f(rr.aaMax)} | ${mb.map((x) => x.toFixed(0)).join(', ')} | ${rs.map((r) => r.wal?.fpi ?? '–').join(', ')} |`,
    );
  }
  console.log('');
  for (const r of results) for (const line of describeDiagnostics(r)) console.log(line);
}
