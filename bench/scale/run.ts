// Scale-out on one PostgreSQL:
//   API      1, 2 and 4 `surety serve` processes (SURETY_WORKER=off) behind a round-robin load
//            generator (one autocannon per process, run at once, summed); POST /v1/payments with an
//            Idempotency-Key that is sent twice (two requests in a row share it, so the pair usually
//            lands on two processes at once). After each run: payments == stored keys (no key ran twice).
//   workers  1, 2 and 4 `surety worker` processes draining a backlog of deliveries to one receiver:
//            a receiver that answers at once (CPU-bound here), and one that takes 50 ms per answer,
//            as real receivers do (each worker is then bounded by its attempts in flight).
//   slow     the 50 ms receiver with SLOW_IN_FLIGHT attempts in flight per worker (the service's
//            SURETY_WEBHOOK_CONCURRENCY), so that even 4 processes need well under this box's two
//            cores: what it measures is the design's scale-out (claims that do not contend, refills
//            that keep every slot busy), not the cores (docs/decisions.md, "bench/scale's 50 ms rows").
//            Each process count gets a backlog of `--slow-seconds` of its ideal rate, so every
//            configuration runs about as long.
//   slow64   the same at the default 64 in flight (for information: one worker alone then needs
//            ~1 core here, two need more than the box has).
//            Each configuration first delivers an untimed warm-up (1,000 per process in --quick);
//            the clock runs from the backlog's commit. After each run: receipts == deliveries == attempts.
//            Each row also shows the box's CPU over the timed part (every process on the machine, as a
//            share of all its cores; other tenants of the machine included), the share of it the
//            benchmark's processes used, and how busy the workers' slots were (the attempts' own
//            durations ÷ slots × time: 1 would be every slot always in an attempt).
// On this 2-core machine the load generator, the API processes, PostgreSQL and the other tenants of the
// box share the same cores: the CPU, not the database, sets the ceiling. The report says so.
// Prints markdown, then `RESULT {json}` for bench/run.ts.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/scale/run.ts [--quick] [--cases api,workers,slow]
import { availableParallelism, loadavg } from 'node:os';
import { emitResult } from '../lib/result.js';
import { api } from './api.js';
import {
  CONNECTIONS,
  cases,
  DEFAULT_IN_FLIGHT,
  duration,
  fastBacklog,
  processCounts,
  SLOW_IN_FLIGHT,
  SLOW_MS,
  slowBacklog,
  slowSeconds,
  warmUpPerProcess,
} from './setup.js';
import { workers } from './workers.js';

const load = loadavg()[0]!;
const reverse = Number(process.env.BENCH_RUN ?? 0) % 2 === 1;
const counts = reverse ? [...processCounts].reverse() : processCounts;
const apiRuns = [];
if (cases.has('api')) for (const k of counts) apiRuns.push(await api(k));
const workerRuns = [];
if (cases.has('workers')) for (const k of counts) workerRuns.push(await workers(k));
type WorkerRun = Awaited<ReturnType<typeof workers>>;
const slowRuns: WorkerRun[] = [];
if (cases.has('slow')) for (const k of counts) slowRuns.push(await workers(k, SLOW_MS, SLOW_IN_FLIGHT));
const slow64Runs: WorkerRun[] = [];
if (cases.has('slow64'))
  for (const k of counts) slow64Runs.push(await workers(k, SLOW_MS, DEFAULT_IN_FLIGHT));
for (const runs of [apiRuns, workerRuns, slowRuns, slow64Runs])
  runs.sort((x, y) => x.processes - y.processes);

if (apiRuns.length > 0)
  console.log(
    `| API processes | POST req/s (sum) | ×1 | 2xx | 409 (same key in flight) | payments | keys (past their first phase) | no double execution |`,
  );
const cpuCell = (us: Record<string, number> | undefined) =>
  us
    ? `${Object.values(us)
        .reduce((a, b) => a + b, 0)
        .toFixed(0)} = ${['worker', 'receiver', 'postgres'].map((g) => (us[g] ?? 0).toFixed(0)).join(' + ')}`
    : 'not measured';
if (apiRuns.length > 0) console.log('|---:|---:|---:|---:|---:|---:|---:|---|');
for (const r of apiRuns)
  console.log(
    `| ${r.processes} | ${r.rps.toFixed(0)} | ${(r.rps / apiRuns[0]!.rps).toFixed(2)} | ${r.ok} | ${r.conflicts} | ${r.payments} | ${r.keys} (${r.phased}) | ${r.check ? 'yes' : '**NO**'} |`,
  );
if (workerRuns.length > 0) {
  console.log(
    `\n| worker processes | deliveries/s | ×1 | CPU µs per delivery: workers + receiver + PostgreSQL backends | receipts | attempts | delivered | no double execution |`,
  );
  console.log('|---:|---:|---:|---|---:|---:|---:|---|');
}
for (const r of workerRuns)
  console.log(
    `| ${r.processes} | ${r.rate.toFixed(0)} | ${(r.rate / workerRuns[0]!.rate).toFixed(2)} | ${cpuCell(r.cpu)} | ${r.receipts} | ${r.attempts} | ${r.delivered} | ${r.check ? 'yes' : '**NO**'} |`,
  );
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : 'not measured');
for (const [runs, inFlight] of [
  [slowRuns, SLOW_IN_FLIGHT],
  [slow64Runs, DEFAULT_IN_FLIGHT],
] as const) {
  if (runs.length === 0) continue;
  console.log(
    `\n| worker processes, ${inFlight} in flight each, receiver answering in ${SLOW_MS} ms | deliveries/s | ×1 | box CPU (all processes) ÷ ${availableParallelism()} cores | of it the benchmark's | slots busy | CPU µs per delivery: workers + receiver + PostgreSQL backends | backlog | receipts | attempts | delivered | no double execution |`,
  );
  console.log('|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|');
  for (const r of runs)
    console.log(
      `| ${r.processes} | ${r.rate.toFixed(0)} | ${(r.rate / runs[0]!.rate).toFixed(2)} | ${pct(r.box)} | ${pct(r.own)} | ${pct(r.slots)} | ${cpuCell(r.cpu)} | ${r.backlog} | ${r.receipts} | ${r.attempts} | ${r.delivered} | ${r.check ? 'yes' : '**NO**'} |`,
    );
}
console.log(
  `\n${CONNECTIONS} connections in all, split across the API processes; ${duration} s per configuration; backlogs of ${fastBacklog} (immediate receiver), ${slowBacklog} (${SLOW_MS} ms receiver, ${DEFAULT_IN_FLIGHT} in flight) and ${slowSeconds} s of each process count's ideal rate (${SLOW_IN_FLIGHT} in flight) deliveries after a warm-up of ${warmUpPerProcess} per worker process; load average at start ${load.toFixed(1)}`,
);

// Each ratio is over the one-process run of its own table (each table runs 1, 2 and 4 or none).
const api1 = apiRuns.find((r) => r.processes === 1)!;
const w1 = workerRuns.find((r) => r.processes === 1)!;
const s1 = slowRuns.find((r) => r.processes === 1)!;
const s64 = slow64Runs.find((r) => r.processes === 1)!;
// The share of the cores (metrics in %, so the report's detail prints them as they read).
const shares = (prefix: string, runs: readonly WorkerRun[]) =>
  runs.flatMap((r) => [
    { name: `${prefix}.${r.processes}.box_cpu`, value: r.box * 100, unit: '% of the cores (box)' },
    { name: `${prefix}.${r.processes}.bench_cpu`, value: r.own * 100, unit: '% of the cores (benchmark)' },
    { name: `${prefix}.${r.processes}.slots_busy`, value: r.slots * 100, unit: '% of slot time' },
  ]);
emitResult({
  bench: 'scale',
  metrics: [
    ...apiRuns.map((r) => ({ name: `api.${r.processes}.rps`, value: r.rps, unit: 'req/s' })),
    ...workerRuns.map((r) => ({ name: `workers.${r.processes}.rate`, value: r.rate, unit: 'deliveries/s' })),
    ...slowRuns.map((r) => ({ name: `slow.${r.processes}.rate`, value: r.rate, unit: 'deliveries/s' })),
    ...shares('slow', slowRuns),
    ...slow64Runs.map((r) => ({ name: `slow64.${r.processes}.rate`, value: r.rate, unit: 'deliveries/s' })),
    ...shares('slow64', slow64Runs),
  ].filter((m) => Number.isFinite(m.value)),
  ratios: [
    ...apiRuns
      .filter((r) => r.processes > 1)
      .map((r) => ({
        name: `scale.api.${r.processes}`,
        value: r.rps / api1.rps,
        ...(r.processes === 2 ? { target: 1.6, op: '>=' as const } : {}),
        what: `API throughput, ${r.processes} processes ÷ 1`,
      })),
    ...workerRuns
      .filter((r) => r.processes > 1)
      .map((r) => ({
        name: `scale.workers.${r.processes}`,
        value: r.rate / w1.rate,
        ...(r.processes === 2 ? { target: 1.6, op: '>=' as const } : {}),
        what: `delivery throughput, ${r.processes} worker processes ÷ 1 (CPU-bound: immediate receiver)`,
      })),
    ...slowRuns
      .filter((r) => r.processes > 1)
      .map((r) => ({
        name: `scale.slow.${r.processes}`,
        value: r.rate / s1.rate,
        ...(r.processes === 2 ? { target: 1.6, op: '>=' as const } : {}),
        what: `delivery throughput, ${r.processes} worker processes ÷ 1, ${SLOW_IN_FLIGHT} in flight each, receiver answering in ${SLOW_MS} ms`,
      })),
    ...slow64Runs
      .filter((r) => r.processes > 1)
      .map((r) => ({
        name: `scale.slow64.${r.processes}`,
        value: r.rate / s64.rate,
        what: `delivery throughput, ${r.processes} worker processes ÷ 1, ${DEFAULT_IN_FLIGHT} in flight each (the default), receiver answering in ${SLOW_MS} ms`,
      })),
  ],
  checks: Object.fromEntries([
    ...apiRuns.map((r) => [`API ×${r.processes}: payments == keys past their first phase`, r.check]),
    ...workerRuns.map((r) => [`workers ×${r.processes}: receipts == attempts == deliveries`, r.check]),
    ...[...slowRuns, ...slow64Runs].map((r) => [
      `workers ×${r.processes}, ${r.inFlight} in flight, ${SLOW_MS} ms receiver: receipts == attempts == deliveries`,
      r.check,
    ]),
  ]),
});
