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
// The report opens with the issues' targets (22's, and 35's for the delivery path) (bench/lib/targets.ts): each a ratio one benchmark measured
// in this run, judged by that table's target, with the medians it divides beside it.
//
// Each benchmark is its own script, run as a child process; it prints markdown and a last line
// `RESULT {json}` (bench/lib/result.ts). Loopback only; every load loop is bounded in count and time.
// The report is generated whole; the hand-written analysis lives in docs/benchmarks-analysis.md.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { aggregates } from './lib/aggregate.js';
import { benchesFor } from './lib/benches.js';
import { writeCharts } from './lib/charts.js';
import { type Cluster, clusterUnavailable, startCluster } from './lib/cluster.js';
import { type ProfileSummary, summariseProfiles } from './lib/profile.js';
import { reportLines } from './lib/report.js';
import { type Run, runOnce } from './lib/run-once.js';
import { machine, resetStatements, type Statement, topStatements } from './lib/server-info.js';

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
const benches = benchesFor(quick);

// --- run everything ------------------------------------------------------------------------------
const started = new Date();
const m = await machine(url);
const results = new Map<string, Run[]>();
const statements = new Map<string, Statement[] | undefined>();
for (const bench of benches) {
  if (only && !only.has(bench.name)) continue;
  await resetStatements(url);
  const runs: Run[] = [];
  for (let i = 0; i < bench.runs; i++) {
    console.error(`${bench.name}: run ${i + 1} of ${bench.runs} (load average ${loadavg()[0]!.toFixed(1)})`);
    const r = await runOnce(bench, i);
    console.error(`${bench.name}: run ${i + 1} took ${r.seconds.toFixed(0)} s, exit ${r.exit}`);
    runs.push(r);
  }
  results.set(bench.name, runs);
  statements.set(bench.name, await topStatements(url));
}

// --- CPU profiles: one extra quick run of the worker's and the server's benchmarks, not counted ------
const profiles: { title: string; summary: ProfileSummary }[] = [];
if (profile) {
  const profDir = mkdtempSync(join(tmpdir(), 'surety-bench-prof-'));
  const passes: { bench: string; args: string[]; roles: [string, string][] }[] = [
    {
      bench: 'delivery',
      args: ['--quick', '--events', '3000', '--latency-seconds', '1'],
      roles: [
        [
          'worker',
          "The delivery worker (`surety worker`) in the delivery benchmark's latency phases (quick run: one event per transaction, small claims; the throughput phase's worker runs in the benchmark's own process, not profiled here)",
        ],
      ],
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

// --- aggregate, charts (lib/aggregate.ts, lib/charts.ts) ---------------------------------------------
// With --only the report is partial: it goes to bench/results/ (ignored by git), not over docs/benchmarks.md.
const outDir = only ? join(here, 'results') : join(root, 'docs');
const chartDir = join(outDir, 'bench');
mkdirSync(chartDir, { recursive: true });
const agg = aggregates(results);
const charts = writeCharts(chartDir, results, agg.metricOf);

// --- report (lib/report.ts) ----------------------------------------------------------------------
const reportPath = join(outDir, 'benchmarks.md');
const lines = reportLines({
  root,
  outDir,
  url,
  quick,
  only,
  cluster: cluster !== undefined,
  m,
  started,
  finished,
  benches,
  results,
  statements,
  charts,
  profiles,
  agg,
});
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
