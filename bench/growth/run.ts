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
import { createIdempotency, type Idempotency } from '@surety/idempotency';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { claimOnce, pickParams, webhooksInternals } from '@surety/webhooks/testing';
import pg from 'pg';
import { emitResult } from '../lib/result.js';
import { args, percentile, requireDatabaseUrl, roundRatios } from '../lib/stats.js';
import { ensureDeliveries, ensureKeys, keyOf, loadedDueAt } from './load.js';
import { describeDiagnostics, purgeWhileServing } from './purge.js';

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
const respond = async () => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: '{"ok":true}',
});

/** Latencies (ms) of `n` calls of `once`, `concurrency` at a time. */
async function timed(
  n: number,
  concurrency: number,
  once: (i: number) => Promise<unknown>,
): Promise<number[]> {
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await once(i);
        out.push(performance.now() - t);
      }
    }),
  );
  return out;
}

// --- idempotency keys: small vs large ------------------------------------------------------------
const loads: string[] = [];
const keyCount = { small: 10_000, large: LARGE } as const;
for (const size of ['small', 'large'] as const) {
  const [schema, n] = [schemas[size], keyCount[size]];
  const r = await ensureKeys(url, schema, n, 86_400 * 365, log);
  loads.push(
    `${schema} (${n.toLocaleString('en-US')} keys): ${r.reused ? 'reused' : `loaded in ${r.seconds.toFixed(0)} s`}`,
  );
}
const engines: Record<'small' | 'large', Idempotency> = {
  small: createIdempotency({ sql, schema: schemas.small }),
  large: createIdempotency({ sql, schema: schemas.large }),
};
const run = randomUUID().slice(0, 8);
// Rounds alternate which size goes first, so drift on this shared machine hits both alike.
const sizesInRound = (round: number) =>
  round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
const keyLatency: Record<string, { fresh: number[]; replay: number[] }> = {
  small: { fresh: [], replay: [] },
  large: { fresh: [], replay: [] },
};
// Samples of all rounds are pooled.
const keyRounds = a.quick ? 2 : 4;
for (let round = 0; round < keyRounds; round++) {
  for (const size of sizesInRound(round)) {
    const idem = engines[size];
    const n = keyCount[size];
    const per = Math.ceil(SAMPLES / keyRounds);
    await timed(100, 4, (i) =>
      idem.execute({ tenant: 'bench', key: `warm-${run}-${round}-${i}`, fingerprint: 'f' }, respond),
    );
    const fresh = await timed(per, 4, (i) =>
      idem.execute({ tenant: 'bench', key: `g-${run}-${round}-${i}`, fingerprint: 'f' }, respond),
    );
    // Replays of stored keys picked at random over the whole table (cold pages included).
    const replay = await timed(per, 4, async () => {
      const i = Math.floor(Math.random() * n);
      const out = await idem.execute({ tenant: 'bench', key: keyOf(i), fingerprint: 'x' }, respond);
      // in_flight: two of the 4 concurrent samples drew the same key (a birthday collision): also a lookup
      if (out.kind !== 'mismatch' && out.kind !== 'in_flight')
        throw new Error(`expected the stored key ${keyOf(i)} to be found, got ${out.kind}`);
    });
    keyLatency[size]!.fresh.push(...fresh);
    keyLatency[size]!.replay.push(...replay);
    log(
      `keys ${size} round ${round + 1}: new p50 ${percentile(fresh, 50).toFixed(2)} ms p99 ${percentile(fresh, 99).toFixed(2)}; stored p50 ${percentile(replay, 50).toFixed(2)} p99 ${percentile(replay, 99).toFixed(2)}`,
    );
  }
}
for (const size of ['small', 'large'] as const)
  await sql.query(`delete from ${schemas[size]}.idempotency_keys where key like 'g-%' or key like 'warm-%'`);

// Where a stored key's time goes as the table grows: blocks read from outside shared_buffers per
// lookup, and what one such read costs on this machine (track_io_timing), one lookup at a time.
const io: Record<string, { reads: number; usPerRead: number }> = {};
{
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query('set track_io_timing = on');
  for (const size of ['small', 'large'] as const) {
    const n = keyCount[size];
    let reads = 0;
    let ms = 0;
    const lookups = 400;
    for (let j = 0; j < lookups; j++) {
      const id = engines[size].lockId('bench', keyOf(Math.floor(Math.random() * n)));
      const { rows } = await c.query<{ 'QUERY PLAN': { Plan: Record<string, number> }[] }>(
        `explain (analyze, buffers, format json) select * from ${schemas[size]}.idempotency_keys where lock_id = ${id}`,
      );
      const plan = rows[0]!['QUERY PLAN'][0]!.Plan;
      reads += plan['Shared Read Blocks'] ?? 0;
      ms += plan['I/O Read Time'] ?? 0;
    }
    io[size] = { reads: reads / lookups, usPerRead: reads ? (ms * 1000) / reads : 0 };
  }
  await c.end();
  log(
    `stored-key lookup: ${io['small']!.reads.toFixed(2)} vs ${io['large']!.reads.toFixed(2)} blocks read per lookup, ${io['large']!.usPerRead.toFixed(0)} µs a read`,
  );
}

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

// --- delivery claim: small vs 1 million pending --------------------------------------------------
// Both backlogs are vacuumed (as autovacuum would: this CI server runs with autovacuum off, so dead
// rows of earlier runs would pile up in one and not the other) and each round starts right after a
// CHECKPOINT, so both sizes pay their full-page WAL images. Rounds alternate between the sizes.
const whSchemas = { small: 'bench_growth_wh_v2_10k', large: 'bench_growth_wh_v2_1m' };
const claimLatency: Record<string, number[]> = { small: [], large: [] };
const whs: Record<string, Webhooks> = {};
for (const [size, n] of [
  ['small', 10_000],
  ['large', 1_000_000],
] as const) {
  const r = await ensureDeliveries(url, whSchemas[size], n, 'http://127.0.0.1:9/hooks', log);
  loads.push(
    `${whSchemas[size]} (${n.toLocaleString('en-US')} pending deliveries): ${r.reused ? 'reused' : `loaded in ${r.seconds.toFixed(0)} s`}`,
  );
  whs[size] = new Webhooks({
    sql,
    schema: whSchemas[size],
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await sql.query(`vacuum analyze ${whSchemas[size]}.webhook_deliveries`);
}
const claimRounds = a.quick ? 2 : 3;
// The claim's fairness parameters (window of 100, no caps: one tenant's backlog), as a worker with
// batches of 50 and the caps opened up runs it: this measures what the claim costs as the table grows.
const NO_CAPS = [100, 1_000_000, 1_000_000, [], [], []] as const;
for (let round = 0; round < claimRounds; round++) {
  for (const size of sizesInRound(round)) {
    const wh = whs[size]!;
    const D = `${whSchemas[size]}.webhook_deliveries`;
    await sql.query('checkpoint');
    const lease = new Date(Date.now() + 3_600_000).toISOString();
    const lat: number[] = [];
    for (let i = 0; i < 100; i++) {
      // as the worker runs it: in a transaction with the claim's settings (timed)
      const t = performance.now();
      const { rows } = await sql.transaction(
        (tx) => claimOnce(tx, wh, [new Date().toISOString(), 50, lease, `bench-${run}`, ...NO_CAPS]),
        { first: webhooksInternals(wh).st.claimSettings },
      );
      lat.push(performance.now() - t);
      if (rows.length !== 50 || rows.some((r) => r.id === null))
        throw new Error(`claimed ${rows.length} of 50`);
      // then its outcome, as a worker writes it (not timed): a failed attempt, due again in an hour,
      // which moves the rows out of the head of the due index
      await sql.query(
        `update ${D} set next_attempt_at = $2, lease_until = null where id = any ($1::text[]) and locked_by = $3`,
        [rows.map((r) => r.id), lease, `bench-${run}`],
      );
    }
    claimLatency[size]!.push(...lat);
    // Put the claimed rows back in their loaded due order, and vacuum away the versions the claims
    // and this update left, so the schema stays the same backlog for the next round and run.
    await sql.query(
      `update ${D} set next_attempt_at = ${loadedDueAt(D)}, attempts = 0, locked_by = null, lease_until = null where locked_by = $1`,
      [`bench-${run}`],
    );
    await sql.query(`vacuum ${D}`);
    log(
      `delivery claim ${size} round ${round + 1}: p50 ${percentile(lat, 50).toFixed(2)} ms, p99 ${percentile(lat, 99).toFixed(2)}`,
    );
  }
}

// --- plans ---------------------------------------------------------------------------------------
async function plans(): Promise<{ markdown: string; seqScans: string[] }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  // An array parameter as an array literal: String([]) is '', which PostgreSQL refuses for text[].
  const lit = (v: unknown): string =>
    v === null
      ? 'null'
      : Array.isArray(v)
        ? c.escapeLiteral(`{${v.map((x) => `"${String(x).replace(/["\\]/g, '\\$&')}"`).join(',')}}`)
        : c.escapeLiteral(String(v));
  const now = new Date().toISOString();
  const idem = createIdempotency({ sql, schema: schemas.large });
  const wh = new Webhooks({
    sql,
    schema: whSchemas.large,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  const ist = (await import('../../packages/idempotency/src/statements.js')).statements(schemas.large);
  const stored = keyOf(12345);
  // The claim's parameter: the key's lock id and that of its former quoted form (the lock itself is
  // taken by the statement before it, `claimLock`; unset here, the claim reads `locked` as false).
  const claimParams = (key: string) => [`{${idem.lockId('bench', key)},${idem.lockId('bench', `"${key}"`)}}`];
  // The completed row's insert, as the engine sends it with COMMIT.
  const record = ist.completeAtCommit(
    {
      tenant: 'bench',
      key: 'new-key',
      fingerprint: 'f',
      status: 201,
      headers: '{"content-type":"application/json"}',
      body: '{}',
      bodyGzip: null,
      bodyEncoding: null,
      createdAt: now,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      lockId: idem.lockId('bench', 'new-key'),
    },
    false,
  );
  // [label, statement, parameters, settings the product runs it with]
  const cases: [string, { text: string }, unknown[], string?][] = [
    // As the adapters send it: the key's lock id, and with it that of its former quoted form.
    ['idempotency claim, stored key', ist.claim, claimParams(stored)],
    ['idempotency claim, new key', ist.claim, claimParams('new-key')],
    ['idempotency record at COMMIT (insert of the completed row)', record.statement, [...record.params]],
    ['idempotency purge (one batch of 200, the first of a call)', ist.purge, [now, 200, '-infinity']],
    [
      'delivery claim (batch of 50, 1 M pending)',
      webhooksInternals(wh).st.claim,
      pickParams([now, 50, new Date(Date.now() + 60_000).toISOString(), 'explain', ...NO_CAPS]),
      webhooksInternals(wh).st.claimSettings,
    ],
  ];
  const md: string[] = [];
  const seqScans: string[] = [];
  for (const [label, st, params, settings] of cases) {
    const plan: Record<string, string> = {};
    for (const mode of ['auto', 'force_generic_plan'] as const) {
      await c.query('begin');
      await c.query(`set local plan_cache_mode = ${mode}`);
      if (settings) await c.query(settings.replace(/set local plan_cache_mode = \w+;?/, ''));
      await c.query(`prepare bench_plan as ${st.text}`);
      const { rows } = await c.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers${mode === 'force_generic_plan' ? '' : ''}) execute bench_plan${params.length ? `(${params.map(lit).join(', ')})` : ''}`,
      );
      await c.query('rollback');
      await c.query('deallocate all');
      plan[mode] = rows.map((r) => r['QUERY PLAN']).join('\n');
      // A sequential scan of a tiny table (the endpoints: one row here) is the right plan; one over a
      // table the planner expects to be large is what must not happen on a hot path.
      for (const m of plan[mode]!.matchAll(/Seq Scan on (\w+)[^\n]*?rows=(\d+)/g))
        if (Number(m[2]) >= 10_000)
          seqScans.push(`${label}: ${m[1]} (${mode === 'auto' ? 'custom plan' : 'generic plan only'})`);
    }
    md.push(
      `#### ${label}`,
      '',
      '```text',
      plan['auto']!,
      '```',
      '',
      /Seq Scan on \w+[^\n]*?rows=\d{5,}/.test(plan['force_generic_plan']!)
        ? `The generic plan (\`plan_cache_mode = force_generic_plan\`: what a named prepared statement could switch to after 5 executions) scans a large table sequentially:\n\n\`\`\`text\n${plan['force_generic_plan']}\n\`\`\`\n`
        : 'The generic plan (`plan_cache_mode = force_generic_plan`) scans no large table sequentially either.\n',
    );
  }
  await c.end();
  return { markdown: md.join('\n'), seqScans };
}
const p = await plans();
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
      value: percentile(cl, 50) / percentile(cs, 50),
      target: 1.5,
      op: '<=',
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
