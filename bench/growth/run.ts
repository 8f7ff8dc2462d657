// Growth: what the hot statements cost as the tables grow, on real PostgreSQL.
//   keys        idempotency `execute` (claim + completed-row insert, no business write) for new keys, and
//               replays of stored keys, with 10 thousand vs 10 million stored keys (--quick: 1 million)
//   purge       1 million expired keys purged (Idempotency.purgeExpired, its defaults) while requests
//               are served, in 3 rounds (a before-window, then a call for a third of the keys): p99
//               during ÷ before, the median of the rounds, with the before-windows' A/A test beside it
//               (and after, when autovacuum comes); purge.ts alone runs only this step, and compares
//               settings side by side
//   deliveries  the delivery claim (batches of 50, each followed by its outcome) with 10 thousand vs
//               1 million pending deliveries
//   plans       EXPLAIN (ANALYZE, BUFFERS) of the claim statements and their neighbours on the large
//               tables, custom and generic plans checked for sequential scans
// Loaded schemas are kept and reused (bench_growth_*): 10 million keys take ~2 minutes to write.
// Prints markdown, then `RESULT {json}` (the plans go in `notes`) for bench/run.ts.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/growth/run.ts [--quick]
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createPgSql } from '@surety/db';
import { emitResult } from '../lib/result.js';
import { args, percentile, requireDatabaseUrl, roundRatios } from '../lib/stats.js';
import { measureClaims } from './claims.js';
import { measureKeys } from './keys.js';
import { plans } from './plans.js';
import { describeDiagnostics } from './purge-report.js';
import { purgeWhileServing } from './purge-serve.js';

const a = args();
const url = requireDatabaseUrl(
  'the benchmark creates schemas bench_growth_* and keeps them for the next run',
);
const LARGE = a.quick ? 1_000_000 : 10_000_000;
const SAMPLES = a.quick ? 600 : 2000;
const log = (s: string) => console.error(s);
const load = loadavg()[0]!;
const schemas = {
  // v2: the key table gained lock_id; schemas loaded by the earlier layout are not reused
  small: 'bench_growth_keys_v2_10k',
  large: a.quick ? 'bench_growth_keys_v2_1m' : 'bench_growth_keys_v2_10m',
};
const sql = createPgSql({ connectionString: url, max: 6 });

// --- idempotency keys: small vs large (keys.ts) ------------------------------------------------------
const run = randomUUID().slice(0, 8);
const { loads, keyLatency, io } = await measureKeys({
  url,
  sql,
  schemas,
  large: LARGE,
  samples: SAMPLES,
  rounds: a.quick ? 2 : 4,
  run,
  log,
});

// --- purge 1 million expired keys while serving (purge.ts; run alone it compares settings) -------
// Three rounds, each a 7 s before-window (~20 k requests) and then a purge call for a third of the
// keys, ~12 s: one window's p99 on this shared machine is set by the neighbours' bursts (its own two
// halves differed 0.67–1.00× over 20–30 s), so the ratio is the median of the rounds, each against
// the window just before it, with that A/A spread beside it. 21 s of before-windows, as the single
// 20 s window was, so the step takes as long as it did.
const purgeRun = await purgeWhileServing(url, 'default', {}, { rounds: 3, beforeMs: 7000, log });
const { before, during, after, purged, seconds: purgeSeconds } = purgeRun;
const purgeRounds = roundRatios(purgeRun.rounds);
const purgeLoad = { seconds: purgeRun.loadSeconds };

// --- delivery claim: small vs 1 million pending (claims.ts) --------------------------------------
const claimRounds = a.quick ? 2 : 3;
const claimLatency = await measureClaims({ url, sql, rounds: claimRounds, run, loads, log });

// --- plans (plans.ts) ---------------------------------------------------------------------------
const p = await plans(url, sql, schemas);
const sharedBuffers = (await sql.query<{ s: string }>('select current_setting($1) as s', ['shared_buffers']))
  .rows[0]!.s;
const largeSize = (
  await sql.query<{ s: string }>(
    `select pg_size_pretty(pg_table_size($1::regclass)) || ' table, ' || pg_size_pretty(pg_indexes_size($1::regclass)) || ' indexes' as s`,
    [`${schemas.large}.idempotency_keys`],
  )
).rows[0]!.s;
await sql.close();

const f = (x: number) => x.toFixed(2);
const ks = keyLatency['small']!;
const kl = keyLatency['large']!;
const cs = claimLatency['small']!;
const cl = claimLatency['large']!;
const largeLabel = a.quick ? '1 M' : '10 M';
console.log(
  `| statement (latency in ms, ${SAMPLES} samples, 4 at a time, rounds alternating between the sizes) | small table p50 | p99 | large table p50 | p99 | large ÷ small (p50) |`,
);
console.log('|---|---:|---:|---:|---:|---:|');
console.log(
  `| idempotency execute, new key (10 k vs ${largeLabel} keys) | ${f(percentile(ks.fresh, 50))} | ${f(percentile(ks.fresh, 99))} | ${f(percentile(kl.fresh, 50))} | ${f(percentile(kl.fresh, 99))} | ${f(percentile(kl.fresh, 50) / percentile(ks.fresh, 50))} |`,
);
console.log(
  `| idempotency execute, stored key (10 k vs ${largeLabel} keys) | ${f(percentile(ks.replay, 50))} | ${f(percentile(ks.replay, 99))} | ${f(percentile(kl.replay, 50))} | ${f(percentile(kl.replay, 99))} | ${f(percentile(kl.replay, 50) / percentile(ks.replay, 50))} |`,
);
console.log(
  `| delivery claim, 50 rows (10 k vs 1 M pending; ${claimRounds} × 100 claims, one at a time, each followed by its outcome, each round after a CHECKPOINT) | ${f(percentile(cs, 50))} | ${f(percentile(cs, 99))} | ${f(percentile(cl, 50))} | ${f(percentile(cl, 99))} | ${f(percentile(cl, 50) / percentile(cs, 50))} |`,
);
console.log(
  `\nA stored-key lookup (the claim's index scan and heap fetch), one at a time, read ${io['small']!.reads.toFixed(2)} blocks from outside shared_buffers at 10 k keys and ${io['large']!.reads.toFixed(2)} at ${largeLabel} (${schemas.large}: ${largeSize}; shared_buffers ${sharedBuffers}); each read took ${io['large']!.usPerRead.toFixed(0)} µs on this machine (track_io_timing).`,
);
console.log(
  `\nPurge of ${purged.toLocaleString('en-US')} expired keys (purgeExpired's defaults) while serving new keys 4 at a time, in ${purgeRun.rounds.length} rounds (a 7 s before-window, then a call for a third of the keys): during ÷ before by round ${purgeRounds.ratios.map(f).join(', ')} (median ${f(purgeRounds.median)}), the before-windows' own halves (A/A) ${purgeRounds.aa.map(f).join(', ')}${purgeRun.rounds.some((r) => r.beforeWhileVacuum > 0) ? ` (${purgeRun.rounds.reduce((n, r) => n + r.beforeWhileVacuum, 0)} before-requests left out: the key table's vacuum ran)` : ''}; ${purgeSeconds.toFixed(1)} s of purging (${(purged / purgeSeconds).toFixed(0)} rows/s); ` +
    `p50/p99 before ${f(percentile(before, 50))} / ${f(percentile(before, 99))} ms, during ${f(percentile(during, 50))} / ${f(percentile(during, 99))} ms (${during.length} requests during the purge), in the 5 s after ${f(percentile(after, 50))} / ${f(percentile(after, 99))} ms` +
    (purgeRun.wal
      ? `; WAL written while it ran ${(purgeRun.wal.bytes / 2 ** 20).toFixed(0)} MB (${purgeRun.wal.fpi} full-page images, serving's included), ${purgeRun.wal.syncs} WAL syncs.`
      : '.'),
);
console.log(describeDiagnostics(purgeRun).join('\n'));
console.log(
  `\nData: ${[...loads, `bench_growth_purge (1,000,000 expired keys): loaded in ${purgeLoad.seconds.toFixed(0)} s`].join('; ')}. Load average at start ${load.toFixed(1)}.`,
);
console.log(
  `\nSequential scans of large tables in the plans below: ${p.seqScans.length ? p.seqScans.join('; ') : 'none (custom and generic plans checked)'}.`,
);

emitResult({
  bench: 'growth',
  metrics: [
    { name: 'keys.small.p50', value: percentile(ks.fresh, 50), unit: 'ms' },
    { name: 'keys.large.p50', value: percentile(kl.fresh, 50), unit: 'ms' },
    { name: 'keys.small.p99', value: percentile(ks.fresh, 99), unit: 'ms' },
    { name: 'keys.large.p99', value: percentile(kl.fresh, 99), unit: 'ms' },
    { name: 'replay.small.p50', value: percentile(ks.replay, 50), unit: 'ms' },
    { name: 'replay.large.p50', value: percentile(kl.replay, 50), unit: 'ms' },
    { name: 'deliveries.small.p50', value: percentile(cs, 50), unit: 'ms' },
    { name: 'deliveries.large.p50', value: percentile(cl, 50), unit: 'ms' },
    { name: 'replay.small.blocks_read', value: io['small']!.reads, unit: 'blocks/lookup' },
    { name: 'replay.large.blocks_read', value: io['large']!.reads, unit: 'blocks/lookup' },
    { name: 'replay.large.us_per_read', value: io['large']!.usPerRead, unit: 'µs' },
    { name: 'purge.rows_per_s', value: purged / purgeSeconds, unit: 'rows/s' },
    { name: 'purge.p99_before', value: percentile(before, 99), unit: 'ms' },
    { name: 'purge.p99_during', value: percentile(during, 99), unit: 'ms' },
    { name: 'purge.p99_after', value: percentile(after, 99), unit: 'ms' },
    { name: 'purge.rounds_min', value: purgeRounds.min, unit: '×' },
    { name: 'purge.rounds_max', value: purgeRounds.max, unit: '×' },
    { name: 'purge.aa_min', value: purgeRounds.aaMin, unit: '×' },
    { name: 'purge.aa_max', value: purgeRounds.aaMax, unit: '×' },
  ],
  ratios: [
    {
      name: 'growth.keys',
      value: percentile(kl.fresh, 50) / percentile(ks.fresh, 50),
      target: 1.5,
      op: '<=',
      what: `idempotency execute p50, new key, ${largeLabel} ÷ 10 k stored keys`,
    },
    {
      name: 'growth.replay',
      value: percentile(kl.replay, 50) / percentile(ks.replay, 50),
      target: 1.5,
      op: '<=',
      what: `idempotency execute p50, stored key, ${largeLabel} ÷ 10 k stored keys`,
    },
    {
      name: 'growth.deliveries',
      value: percentile(cl, 50) / percentile(cs, 50), // judged by bench/lib/targets.ts (issue 35)
      what: 'delivery claim p50, 1 M ÷ 10 k pending deliveries',
    },
    {
      name: 'growth.purge',
      value: purgeRounds.median,
      target: 1.1,
      op: '<=',
      what: 'serving p99 during the purge of 1 M expired keys ÷ before, the median of 3 rounds (each a third of the keys against the window just before it)',
    },
  ],
  checks: {
    'no sequential scan of a large table in the hot plans (custom plans)': !p.seqScans.some((x) =>
      x.includes('custom plan'),
    ),
    'purge removed every expired key': purged === 1_000_000,
  },
  notes: `### Query plans (EXPLAIN (ANALYZE, BUFFERS), on the ${largeLabel}-key and 1 M-delivery tables, each in a rolled-back transaction)\n\n${p.markdown}`,
});
