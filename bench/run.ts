// `npm run bench`: every benchmark in one go on real PostgreSQL (DATABASE_URL), each side by side with
// its peer or baseline in the same run, repeated (full: 3 runs; --quick: 1 shorter run) for medians and
// spread, then docs/benchmarks.md and the charts in docs/bench/*.svg are written.
//
//   npm run bench [-- --quick] [-- --only name[,name]] [-- --no-profile]
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npm run bench …   (an existing server instead)
//
// Without DATABASE_URL the run starts its own PostgreSQL cluster (bench/lib/cluster.ts: initdb on a
// temporary directory, configured as docs/operations.md recommends) and removes it at the end. The
// report prints the server's settings, each benchmark's top statements from pg_stat_statements (where
// the server has it loaded), and, unless --no-profile, CPU profiles of the worker and the idempotency
// server from one extra quick run each (not counted in the results).
//
// The report opens with issue 22's targets (bench/lib/targets.ts): each a ratio one benchmark measured
// in this run, judged by that table's target, with the medians it divides beside it.
//
// Each benchmark is its own script, run as a child process; it prints markdown and a last line
// `RESULT {json}` (bench/lib/result.ts). Loopback only; every load loop is bounded in count and time.
// The report is generated whole; the hand-written analysis lives in docs/benchmarks-analysis.md.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type Cluster, clusterUnavailable, REPORTED_SETTINGS, startCluster } from './lib/cluster.js';
import { type ProfileSummary, profileMarkdown, summariseProfiles } from './lib/profile.js';
import { type BenchResult, parseResult } from './lib/result.js';
import { median } from './lib/stats.js';
import { barChart, lineChart } from './lib/svg.js';
import { detailOf, SUPERSEDED, TARGETS, verdictOf } from './lib/targets.js';
import { TETHER_ARGS } from './lib/tether.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const onlyAt = argv.indexOf('--only');
const only = onlyAt >= 0 ? new Set(argv[onlyAt + 1]!.split(',')) : undefined;
const profile = !argv.includes('--no-profile');
let cluster: Cluster | undefined;
if (!process.env.DATABASE_URL) {
  const why = clusterUnavailable();
  if (why) {
    console.error(
      `cannot start the benchmark's own PostgreSQL (${why}); set DATABASE_URL to a database instead`,
    );
    process.exit(2);
  }
  cluster = await startCluster();
  const stopCluster = () => cluster?.stop();
  process.on('exit', stopCluster);
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      stopCluster();
      process.exit(130);
    });
  process.env.DATABASE_URL = await cluster.createDatabase('bench');
  console.error(`started the benchmark's own PostgreSQL on 127.0.0.1:${cluster.port} (${cluster.dir})`);
}
const url = process.env.DATABASE_URL;

interface Bench {
  name: string;
  title: string;
  file: string;
  args: string[];
  runs: number;
  /** Longest one run may take before it is killed. */
  timeoutMs: number;
  conditions?: boolean;
}

const q = (quickArgs: string[], fullArgs: string[]) => (quick ? quickArgs : fullArgs);
const benches: Bench[] = [
  {
    name: 'idempotency',
    title: 'Idempotency: POST throughput with the layer on ÷ off, and the npm peer',
    file: 'idempotency/run.ts',
    args: q(['--quick', '--seconds', '2'], ['--seconds', '8', '--rounds', '2']),
    runs: quick ? 1 : 3,
    timeoutMs: 300_000,
  },
  {
    name: 'delivery',
    title: 'Delivery: deliveries/s against the ceiling, pg-boss and graphile-worker; latency against rate',
    file: 'delivery/run.ts',
    args: q(['--quick', '--events', '3000', '--latency-seconds', '2'], []),
    runs: quick ? 1 : 3,
    timeoutMs: 600_000,
  },
  {
    name: 'publish',
    title: 'Publish: outbox writes per second, NOTIFY after COMMIT against NOTIFY in the transaction',
    file: 'delivery/publish.ts',
    args: q(['--quick'], []),
    runs: 1,
    timeoutMs: 120_000,
  },
  {
    name: 'client',
    title: 'Client: happy-path overhead against undici fetch, ky and got',
    file: 'client/run.ts',
    args: q(['1', '1', '32', 'defaults|global|ky|got'], ['3', '5', '32', 'defaults|global|ky|got']),
    runs: quick ? 1 : 3,
    timeoutMs: 300_000,
  },
  {
    name: 'client-budget',
    title: 'Client: extra traffic under a 100%-failing upstream, with and without the retry budget',
    file: 'client/budget.ts',
    args: q(['--quick'], []),
    runs: quick ? 1 : 3,
    timeoutMs: 120_000,
  },
  {
    name: 'verify',
    title: 'Verification: ops/s against standardwebhooks and stripe',
    file: 'verify/run.ts',
    args: q(['--seconds', '0.25', '--rounds', '1'], ['--seconds', '0.5', '--rounds', '3']),
    runs: quick ? 1 : 3,
    timeoutMs: 300_000,
    conditions: true,
  },
  {
    name: 'scale',
    title: 'Scale-out: 1, 2 and 4 API processes and worker processes on one PostgreSQL',
    file: 'scale/run.ts',
    args: q(['--quick'], []),
    runs: quick ? 1 : 2,
    timeoutMs: 900_000,
  },
  {
    name: 'fairness',
    title: "Fairness: another tenant's publish→delivery latency while a hostile tenant's 500 attempts hang",
    file: 'fairness/run.ts',
    args: q(['--quick'], []),
    runs: quick ? 1 : 3,
    timeoutMs: 300_000,
  },
  {
    name: 'growth',
    title: 'Growth: claim latency as the tables grow, purge while serving, and the query plans',
    file: 'growth/run.ts',
    args: q(['--quick'], []),
    runs: 1,
    timeoutMs: 1_800_000,
  },
];

interface Run {
  result: BenchResult | undefined;
  markdown: string;
  seconds: number;
  loadBefore: number;
  loadAfter: number;
  exit: number | null;
}

function runOnce(bench: Bench, i: number, env: Record<string, string> = {}): Promise<Run> {
  const loadBefore = loadavg()[0]!;
  const started = performance.now();
  const execArgs = [...(bench.conditions ? ['--conditions=@surety/source'] : []), '--import', 'tsx'];
  const child = spawn(
    process.execPath,
    [...TETHER_ARGS, ...execArgs, join(here, bench.file), ...bench.args],
    {
      cwd: root,
      env: { ...process.env, ...env, BENCH_RUN: String(i) },
      // A stdin pipe ties the benchmark to this run (bench/lib/tether.mjs): killed at its time limit, it
      // takes the workers and servers it started with it.
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    for (const line of c.toString().split('\n').filter(Boolean))
      process.stderr.write(`  [${bench.name}] ${line}\n`);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), bench.timeoutMs);
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({
        result: parseResult(out),
        markdown: out
          .split('\n')
          .filter((l) => !l.startsWith('RESULT '))
          .join('\n')
          .trim(),
        seconds: (performance.now() - started) / 1000,
        loadBefore,
        loadAfter: loadavg()[0]!,
        exit: code,
      });
    });
  });
}

async function machine() {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ v: string }>("select current_setting('server_version') as v");
  const settings = await c.query<{ name: string; setting: string }>(
    'select name, current_setting(name) as setting from pg_settings where name = any($1) order by name',
    [[...REPORTED_SETTINGS]],
  );
  await c.end();
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memGiB: totalmem() / 2 ** 30,
    freeGiB: freemem() / 2 ** 30,
    node: process.version,
    postgres: rows[0]!.v,
    settings: Object.fromEntries(settings.rows.map((r) => [r.name, r.setting])),
  };
}

// --- pg_stat_statements: reset before a benchmark, its top statements after -------------------------
interface Statement {
  query: string;
  calls: number;
  totalMs: number;
  meanMs: number;
  rows: number;
}
async function statementsQuery<T extends pg.QueryResultRow>(text: string): Promise<T[] | undefined> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('create extension if not exists pg_stat_statements');
    return (await c.query<T>(text)).rows;
  } catch {
    return undefined; // not loaded on this server (shared_preload_libraries): the report says so
  } finally {
    await c.end();
  }
}
const resetStatements = () => statementsQuery('select pg_stat_statements_reset()');
const topStatements = async (): Promise<Statement[] | undefined> =>
  (
    await statementsQuery<{ query: string; calls: string; total: number; mean: number; rows: string }>(
      `select query, calls, total_exec_time as total, mean_exec_time as mean, rows
         from pg_stat_statements
        where query not like '%pg_stat_statements%' and calls >= 100
        order by total_exec_time desc limit 10`,
    )
  )?.map((r) => ({
    query: r.query.replace(/\s+/g, ' ').trim(),
    calls: Number(r.calls),
    totalMs: r.total,
    meanMs: r.mean,
    rows: Number(r.rows),
  }));

// --- run everything ------------------------------------------------------------------------------
const started = new Date();
const m = await machine();
const results = new Map<string, Run[]>();
const statements = new Map<string, Statement[] | undefined>();
for (const bench of benches) {
  if (only && !only.has(bench.name)) continue;
  await resetStatements();
  const runs: Run[] = [];
  for (let i = 0; i < bench.runs; i++) {
    console.error(`${bench.name}: run ${i + 1} of ${bench.runs} (load average ${loadavg()[0]!.toFixed(1)})`);
    const r = await runOnce(bench, i);
    console.error(`${bench.name}: run ${i + 1} took ${r.seconds.toFixed(0)} s, exit ${r.exit}`);
    runs.push(r);
  }
  results.set(bench.name, runs);
  statements.set(bench.name, await topStatements());
}

// --- CPU profiles: one extra quick run of the worker's and the server's benchmarks, not counted ------
const profiles: { title: string; summary: ProfileSummary }[] = [];
if (profile) {
  const profDir = mkdtempSync(join(tmpdir(), 'surety-bench-prof-'));
  const passes: { bench: string; args: string[]; roles: [string, string][] }[] = [
    {
      bench: 'delivery',
      args: ['--quick', '--events', '3000', '--latency-seconds', '1'],
      roles: [['worker', 'The delivery worker (`surety worker`), delivery benchmark, quick run']],
    },
    {
      bench: 'idempotency',
      args: ['--quick', '--seconds', '2'],
      roles: [
        ['server-surety-on', 'The service answering POST /v1/payments with Idempotency-Key'],
        ['server-surety-off', 'The same service and route without the layer (its baseline)'],
      ],
    },
  ];
  for (const pass of passes) {
    const bench = benches.find((b) => b.name === pass.bench)!;
    if (only && !only.has(bench.name)) continue;
    console.error(`${bench.name}: profiling run`);
    const r = await runOnce({ ...bench, args: pass.args }, 99, { BENCH_CPU_PROF_DIR: profDir });
    console.error(`${bench.name}: profiling run took ${r.seconds.toFixed(0)} s, exit ${r.exit}`);
    for (const [role, title] of pass.roles) {
      const summary = summariseProfiles(profDir, role);
      if (summary) profiles.push({ title, summary });
    }
  }
  rmSync(profDir, { recursive: true, force: true });
}
const finished = new Date();

// --- aggregate -----------------------------------------------------------------------------------
interface Agg {
  values: number[];
  median: number;
  min: number;
  max: number;
}
const agg = (values: number[]): Agg => ({
  values,
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
});
const ratiosOf = (name: string) => {
  const runs = (results.get(name) ?? []).map((r) => r.result).filter((r): r is BenchResult => !!r);
  const byName = new Map<string, { ratio: BenchResult['ratios'][number]; values: number[] }>();
  for (const r of runs)
    for (const ratio of r.ratios) {
      const e = byName.get(ratio.name) ?? { ratio, values: [] };
      // A ratio that could not be computed (NaN) arrives as null in the JSON.
      e.values.push(typeof ratio.value === 'number' ? ratio.value : Number.NaN);
      byName.set(ratio.name, e);
    }
  return [...byName.values()].map((e) => ({ ...e.ratio, ...agg(e.values) }));
};
const metricsOf = (bench: string) => (results.get(bench) ?? []).flatMap((r) => r.result?.metrics ?? []);
const metricOf = (bench: string, metric: string): (Agg & { unit: string }) | undefined => {
  const found = metricsOf(bench).filter((x) => x.name === metric);
  const values = found.map((x) => (typeof x.value === 'number' ? x.value : Number.NaN));
  return values.length ? { ...agg(values), unit: found[0]!.unit } : undefined;
};

const f = (n: number) =>
  !Number.isFinite(n)
    ? '—'
    : Math.abs(n) >= 100
      ? n.toFixed(0)
      : Math.abs(n) >= 10
        ? n.toFixed(1)
        : n.toFixed(2);
const verdict = (r: { target?: number; op?: '<=' | '>='; median: number }) =>
  r.target === undefined ? 'info' : `**${verdictOf([r.median], r.op ?? '>=', r.target)}**`;

// --- charts --------------------------------------------------------------------------------------
// With --only the report is partial: it goes to bench/results/ (ignored by git), not over docs/benchmarks.md.
const outDir = only ? join(here, 'results') : join(root, 'docs');
const chartDir = join(outDir, 'bench');
mkdirSync(chartDir, { recursive: true });
const charts: Record<string, string[]> = {};
const addChart = (bench: string, file: string) => {
  charts[bench] = [...(charts[bench] ?? []), file];
};
const bar = (bench: string, file: string, title: string, unit: string, rows: [string, string, number?][]) => {
  const bars = rows
    .map(([label, metric, group]) => {
      const a = metricOf(bench, metric);
      return a ? { label, value: a.median, min: a.min, max: a.max, group } : undefined;
    })
    .filter((b) => b !== undefined);
  if (bars.length === 0) return;
  writeFileSync(join(chartDir, file), barChart(title, unit, bars));
  addChart(bench, file);
};
bar(
  'idempotency',
  'idempotency-throughput.svg',
  'POST /v1/payments throughput (median, whiskers: min–max)',
  'requests/s',
  [
    ['Surety, no idempotency (baseline)', 'surety-off.rps', 0],
    ['Surety, idempotency on', 'surety-on.rps', 0],
    ['Express, no middleware (baseline)', 'express-off.rps', 1],
    ['Express + express-idempotency (Redis)', 'express-on.rps', 1],
  ],
);
bar(
  'delivery',
  'delivery-throughput.svg',
  'Webhook deliveries/s to a local receiver (median, min–max)',
  'deliveries/s',
  [
    ['undici POST loop (ceiling)', 'ceiling.rate', 5],
    ['Surety outbox + DeliveryWorker', 'surety.rate', 0],
    ['pg-boss 10, batches of 2,000', 'pgboss.rate', 1],
    ['pg-boss 10, batches of 32', 'pgboss32.rate', 1],
    ['graphile-worker 0.16.6', 'graphile.rate', 2],
  ],
);
bar(
  'scale',
  'scale-throughput.svg',
  'Scale-out on one PostgreSQL (median, min–max)',
  'requests/s or deliveries/s',
  [
    ['1 API process (POST req/s)', 'api.1.rps', 0],
    ['2 API processes', 'api.2.rps', 0],
    ['4 API processes', 'api.4.rps', 0],
    ['1 worker process (deliveries/s)', 'workers.1.rate', 1],
    ['2 worker processes', 'workers.2.rate', 1],
    ['4 worker processes', 'workers.4.rate', 1],
  ],
);
bar('growth', 'growth-claim.svg', 'Claim latency p50 as the tables grow', 'ms (median of samples)', [
  ['idempotency claim, small table', 'keys.small.p50', 0],
  ['idempotency claim, large table', 'keys.large.p50', 0],
  ['delivery claim, small backlog', 'deliveries.small.p50', 1],
  ['delivery claim, 1 M pending', 'deliveries.large.p50', 1],
]);
{
  const runs = results.get('delivery') ?? [];
  const series: Record<string, [number, number][]> = {};
  for (const r of runs)
    for (const [name, points] of Object.entries(r.result?.series ?? {}))
      series[name] = [...(series[name] ?? []), ...points];
  if (Object.keys(series).length) {
    writeFileSync(
      join(chartDir, 'delivery-latency.svg'),
      lineChart(
        'Surety publish→delivery latency against publish rate (every run)',
        'events/s published (one per transaction)',
        'ms',
        series,
      ),
    );
    addChart('delivery', 'delivery-latency.svg');
  }
}

// --- report --------------------------------------------------------------------------------------
const reportPath = join(outDir, 'benchmarks.md');
// The hand-written analysis, linked from the report (from bench/results/ too, for a partial one).
const analysis = relative(outDir, join(root, 'docs', 'benchmarks-analysis.md'));
const command = `DATABASE_URL=postgres://…/${new URL(url).pathname.slice(1)} npm run bench${quick ? ' -- --quick' : ''}${only ? ` -- --only ${[...only].join(',')}` : ''}`;
const lines: string[] = [
  '# Benchmarks',
  '',
  'Generated by `npm run bench` (bench/run.ts), whole; the analysis is written by hand in',
  `[benchmarks-analysis.md](${analysis}). Every peer runs side by side with Surety in the`,
  'same run, so noise on the machine hits both; ratios are Surety ÷ peer (or ÷ its own baseline).',
  'Re-measure on your machine: the command below is all it takes.',
  '',
  '## Machine and command',
  '',
  `- CPU: ${m.cpu}, ${m.cores} cores; memory ${m.memGiB.toFixed(0)} GiB (${m.freeGiB.toFixed(0)} GiB free at start)`,
  `- Node ${m.node}; PostgreSQL ${m.postgres} on 127.0.0.1 (same machine${cluster ? ", the benchmark's own cluster, started for this run and removed after it" : ', an existing server named by DATABASE_URL'}); Redis on 127.0.0.1 for the npm peer`,
  `- Command: \`${command}\` (${quick ? 'quick mode: 1 short run each' : 'full mode: each benchmark repeated, median and min–max over the runs'})`,
  `- Run ${started.toISOString()} → ${finished.toISOString()} (${((finished.getTime() - started.getTime()) / 60_000).toFixed(1)} min)`,
  "- The machine is shared with other engineers' tests: the load average (1 min) at the start and end of each",
  '  run is listed per benchmark. On 2 cores a load above 2 means the benchmark was competing for CPU.',
  '',
  '## PostgreSQL settings',
  '',
  '| setting | value |',
  '|---|---|',
  ...Object.entries(m.settings).map(([k, v]) => `| ${k} | ${v || '(empty)'} |`),
  '',
  '## Results against the targets',
  '',
  "Issue 22's targets: ratios of measurements taken in this run, side by side, so that they hold on any",
  'machine. The median is over the runs (a row of two ratios is met when both are); the last column has',
  "the medians of what the ratio divides (CPU: µs per operation by process, from /proc). Each benchmark's",
  'section below has its statements by cost (pg_stat_statements), and the CPU profiles are at the end.',
  '',
  '| measure | target | median | min–max | runs | verdict | measured (medians) |',
  '|---|---:|---:|---:|---:|---|---|',
];
const sign = (op: '<=' | '>=' | undefined) => (op === '<=' ? '≤' : '≥');
for (const t of TARGETS) {
  const found = t.ratios.map((name) => ratiosOf(t.bench).find((r) => r.name === name));
  const v = verdictOf(
    found.map((r) => r?.median),
    t.op,
    t.target,
  );
  const each = (g: (r: NonNullable<(typeof found)[number]>) => string) =>
    found.map((r) => (r ? g(r) : '—')).join(' and ');
  const runs = Math.max(0, ...found.map((r) => r?.values.length ?? 0));
  lines.push(
    `| ${t.measure} | ${sign(t.op)} ${t.target} | ${each((r) => f(r.median))} | ${each((r) => `${f(r.min)}–${f(r.max)}`)} | ${runs} | ${v === 'not run' ? (only && !only.has(t.bench) ? `not run (\`--only\`)` : 'not measured') : `**${v}**`} | ${detailOf(
      t,
      [...new Set(metricsOf(t.bench).map((x) => x.name))],
      (name) => metricOf(t.bench, name),
      (n) => (Math.abs(n) >= 10 ? n.toFixed(0) : f(n)),
    )} |`,
  );
}
const inTargets = new Set(TARGETS.flatMap((t) => t.ratios));
lines.push(
  '',
  "The benchmarks' other ratios (those issue 22 restated are shown for information, with why):",
  '',
  '| benchmark | ratio | target | median | min–max | runs | verdict |',
  '|---|---|---:|---:|---:|---:|---|',
);
for (const bench of benches) {
  for (const ratio of ratiosOf(bench.name)) {
    if (inTargets.has(ratio.name)) continue;
    const why = SUPERSEDED[ratio.name];
    const r = why ? { ...ratio, what: `${ratio.what} (${why})`, target: undefined } : ratio;
    lines.push(
      `| ${bench.name} | ${r.what} | ${r.target === undefined ? '—' : `${sign(r.op)} ${r.target}`} | ${f(r.median)} | ${f(r.min)}–${f(r.max)} | ${r.values.length} | ${verdict(r)} |`,
    );
  }
}
const failedChecks: string[] = [];
for (const [name, runs] of results)
  runs.forEach((r, i) => {
    if (r.exit !== 0 || !r.result)
      failedChecks.push(`${name} run ${i + 1}: exit ${r.exit}, ${r.result ? 'result parsed' : 'no result'}`);
    for (const [check, ok] of Object.entries(r.result?.checks ?? {}))
      if (!ok) failedChecks.push(`${name} run ${i + 1}: check failed: ${check}`);
  });
lines.push(
  '',
  failedChecks.length
    ? `**Failed runs or checks:**\n\n${failedChecks.map((c) => `- ${c}`).join('\n')}`
    : 'Every run exited cleanly and every correctness check held (no errors, no double execution).',
  '',
  '## Reading the results',
  '',
  `Written by hand, session by session, in [benchmarks-analysis.md](${analysis}): what each`,
  'missed target costs and why, and the measurements made by hand beside the runs.',
  '',
);
for (const bench of benches) {
  const runs = results.get(bench.name);
  if (!runs) continue;
  lines.push(`## ${bench.title}`, '');
  lines.push(
    `Runs: ${runs.map((r, i) => `#${i + 1} ${r.seconds.toFixed(0)} s, load ${r.loadBefore.toFixed(1)} → ${r.loadAfter.toFixed(1)}`).join('; ')}.`,
    `Command for one run: \`node ${bench.conditions ? '--conditions=@surety/source ' : ''}--import tsx bench/${bench.file} ${bench.args.join(' ')}\`.`,
    '',
  );
  for (const chart of charts[bench.name] ?? []) lines.push(`![${chart}](bench/${chart})`, '');
  const ratios = ratiosOf(bench.name);
  if (runs.length > 1 && ratios.length) {
    lines.push(
      'Per run:',
      '',
      `| ratio | ${runs.map((_, i) => `run ${i + 1}`).join(' | ')} |`,
      `|---|${runs.map(() => '---:').join('|')}|`,
    );
    for (const r of ratios) lines.push(`| ${r.what} | ${r.values.map(f).join(' | ')} |`);
    lines.push('');
  }
  const last = runs.at(-1)!;
  lines.push(`Output of the last run:`, '', last.markdown || '_(no output)_', '');
  const note = runs
    .map((r) => r.result?.notes)
    .filter(Boolean)
    .at(-1);
  if (note) lines.push(note, '');
  const st = statements.get(bench.name);
  lines.push(
    'Top statements by total execution time over all runs (pg_stat_statements; statements run at least 100 times, so set-up and migrations are left out):',
    '',
  );
  if (!st) lines.push('_pg_stat_statements is not loaded on this server (shared_preload_libraries)._', '');
  else
    lines.push(
      '| statement | calls | total ms | mean ms | rows |',
      '|---|---:|---:|---:|---:|',
      ...st.map(
        (x) =>
          `| \`${(x.query.length > 140 ? `${x.query.slice(0, 140)}…` : x.query).replace(/\|/g, '\\|').replace(/`/g, "'")}\` | ${x.calls} | ${x.totalMs.toFixed(0)} | ${x.meanMs.toFixed(3)} | ${x.rows} |`,
      ),
      '',
    );
}
if (profiles.length) {
  lines.push(
    '## CPU profiles',
    '',
    'From one extra quick run of each benchmark with `node --cpu-prof` on the process named (not counted in',
    'the results above; profiling slows the process a little). Self time: the time a function was on the CPU',
    'itself, without what it called.',
    '',
  );
  for (const p of profiles) lines.push(profileMarkdown(p.summary, p.title));
}
writeFileSync(
  reportPath,
  `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`,
);
// The repository's formatter aligns markdown tables; run it so `npm test` (biome check) stays green.
await new Promise((resolve) =>
  spawn(join(root, 'node_modules', '.bin', 'biome'), ['check', '--write', reportPath, chartDir], {
    cwd: root,
    stdio: 'ignore',
  }).on('exit', resolve),
);
console.error(`wrote ${reportPath} and ${Object.values(charts).flat().length} charts in docs/bench/`);
// Done: exit now (the 'exit' handler stops the cluster) rather than when the event loop drains. A child
// that outlived its benchmark once held this process's pipes open, and the run never ended.
process.exit(0);
