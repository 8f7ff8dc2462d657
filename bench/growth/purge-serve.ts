// One purge-while-serving run (bench/growth/purge.ts, bench/growth/run.ts): expired keys purged by
// Idempotency.purgeExpired (or the purge as on main) while new keys are served 4 at a time, in rounds.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createPgSql } from '@surety/db';
import { createIdempotency, type PurgeOptions } from '@surety/idempotency';
import { PURGE_DEFAULTS } from '../../packages/idempotency/src/purge.js';
import { percentile, roundRatios } from '../lib/stats.js';
import { ensureKeys } from './load.js';
import { autovacuums, type Diagnostics, PURGE_APP, sampleServer, walStats } from './purge-sample.js';
import { purgeAsOnMain } from './purge-variants.js';

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

const respond = async () => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
});

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
