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
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { notifyChannel } from '@surety/webhooks/testing';
import autocannon from 'autocannon';
import pg from 'pg';
import { cpuDelta, cpuSnapshot, usPerOperation } from '../lib/cpu.js';
import { startReceiver } from '../lib/receiver.js';
import { emitResult } from '../lib/result.js';
import { adminQuery, args, requireDatabaseUrl } from '../lib/stats.js';
import { TETHER_ARGS } from '../lib/tether.js';
import { OPEN_CAPS, spawnSuretyWorker } from '../lib/worker.js';

const a = args();
const duration = a.num('seconds', a.quick ? 3 : 8);
const fastBacklog = a.num('events', a.quick ? 3000 : 15000);
// Receivers that take 50 ms to answer (a real receiver does work): one worker is then bounded by its
// 64 attempts in flight (~1,280/s), not by this box's two cores, which is where more processes help.
const SLOW_MS = 50;
const slowBacklog = a.num('slow-events', a.quick ? 6000 : 12000);
// Attempts in flight per worker for the `slow` rows: 4 processes × 16 × 20/s = 1,280 deliveries/s at
// ~0.5 ms of CPU each (all processes) is ~0.65 of this box's 2 cores; 2 processes ~0.3.
const SLOW_IN_FLIGHT = a.num('slow-in-flight', 16);
// Seconds of each process count's ideal rate (in flight × 1000 / SLOW_MS per process) in its backlog.
const slowSeconds = a.num('slow-seconds', a.quick ? 4 : 8);
const DEFAULT_IN_FLIGHT = 64;
// Deliveries each worker process makes before the timed backlog (see workers()).
const warmUpPerProcess = a.num('warm-up', a.quick ? 1000 : 2000);
const CONNECTIONS = 32;
// Which of the three tables to measure (all by default; `--cases slow` for the 50 ms rows alone).
const cases = new Set((a.str('cases') ?? 'api,workers,slow,slow64').split(','));
// Process counts to run (all three by default; ratios need 1).
const processCounts = (a.str('processes') ?? '1,2,4').split(',').map(Number);
// pg_stat_statements' view of the claim over each timed part, on stderr (`--statements`).
const statements = a.has('statements');
const url = requireDatabaseUrl('the benchmark creates and drops schemas bench_scale_api and bench_scale_wh');
const API_KEY = 'sk_bench_0123456789abcdef';
const dbName = decodeURIComponent(new URL(url).pathname.slice(1));
const cli = fileURLToPath(new URL('../../apps/server/dist/cli.js', import.meta.url));

async function count(text: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const { rows } = await c.query<{ n: string }>(text);
  await c.end();
  return Number(rows[0]!.n);
}

function startApi(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [...TETHER_ARGS, cli, 'serve'], {
    env: {
      ...process.env,
      SURETY_WORKER: 'off',
      PORT: '0',
      DATABASE_URL: url,
      SURETY_SCHEMA: 'bench_scale_api',
      SURETY_API_KEYS: `bench:${API_KEY}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /Server listening at (http:\/\/[^"\s]+)/.exec(line);
      if (m) resolve({ child, base: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`surety serve exited ${code}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', () => r());
    child.kill('SIGTERM');
  });

async function api(processes: number) {
  await adminQuery(url, 'drop schema if exists bench_scale_api cascade');
  // The first process migrates; the others then find the schema up to date.
  const first = await startApi();
  const rest = await Promise.all(Array.from({ length: processes - 1 }, startApi));
  const all = [first, ...rest];
  let n = 0;
  const shoot = (base: string, seconds: number) =>
    autocannon({
      url: base,
      connections: Math.max(1, Math.floor(CONNECTIONS / processes)),
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/v1/payments',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
          body: JSON.stringify({ amount: '1999', currency: 'USD', customerId: 'cus_bench' }),
          setupRequest: (req: autocannon.Request) => {
            req.headers = { ...req.headers, 'idempotency-key': `scale-${processes}-${Math.floor(n++ / 2)}` };
            return req;
          },
        },
      ],
    });
  await Promise.all(all.map((p) => shoot(p.base, 2))); // warm-up
  const results = await Promise.all(all.map((p) => shoot(p.base, duration)));
  await Promise.all(all.map((p) => stop(p.child)));
  const ok = results.reduce((s, r) => s + r['2xx'], 0);
  const conflicts = results.reduce((s, r) => s + r.non2xx, 0);
  const errors = results.reduce((s, r) => s + r.errors, 0);
  const rps = results.reduce((s, r) => s + r.requests.average, 0);
  const payments = await count('select count(*)::text as n from bench_scale_api.payments');
  const keys = await count('select count(*)::text as n from bench_scale_api.idempotency_keys');
  await adminQuery(url, 'drop schema if exists bench_scale_api cascade');
  // Each payment was written with its key in one transaction, so the counts must match exactly.
  const check = payments === keys && payments <= Math.ceil(n / 2);
  console.error(
    `api ×${processes}: ${rps.toFixed(0)} req/s (2xx ${ok}, 409/other ${conflicts}, errors ${errors}); payments ${payments}, keys ${keys}, distinct keys sent ${Math.ceil(n / 2)}`,
  );
  return { processes, rps, ok, conflicts, errors, payments, keys, check };
}

/** Busy and total jiffies of every core, from /proc/stat (undefined without /proc). */
function boxCpu(): { busy: number; total: number } | undefined {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((x, y) => x + y, 0);
    return { busy: total - f[3]! - f[4]!, total }; // idle and iowait are not busy
  } catch {
    return undefined;
  }
}

async function workers(processes: number, receiverDelayMs = 0, inFlight = DEFAULT_IN_FLIGHT) {
  await adminQuery(url, 'drop schema if exists bench_scale_wh cascade');
  const receiver = await startReceiver(receiverDelayMs);
  const { port } = receiver;
  const backlog =
    receiverDelayMs === 0
      ? fastBacklog
      : inFlight === DEFAULT_IN_FLIGHT
        ? slowBacklog
        : Math.round(((slowSeconds * processes * inFlight * 1000) / receiverDelayMs) * 0.9);
  // Schema and endpoint through the library, then the backlog in one bulk statement.
  const { createPgSql } = await import('@surety/db');
  const { Webhooks, parseAllowList } = await import('@surety/webhooks');
  const sql = createPgSql({ connectionString: url, max: 2 });
  const webhooks = new Webhooks({
    sql,
    schema: 'bench_scale_wh',
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  const { endpoint } = await webhooks.createEndpoint(sql, {
    tenant: 'bench',
    url: `http://127.0.0.1:${port}/hooks`,
    eventTypes: ['*'],
  });
  // The history partitions the service keeps ahead (its defaults: 1-day windows, 7 ahead), made now:
  // each worker runs this maintenance when it starts, in the background, and on a fresh schema its
  // CREATE TABLEs (up to a second each here, under locks on the parent tables) ran into the timed
  // part, stalling the claims, once per worker process.
  await webhooks.maintain({ retentionDays: 30 });
  const children = await Promise.all(
    Array.from({ length: processes }, () =>
      spawnSuretyWorker('bench_scale_wh', { ...OPEN_CAPS, SURETY_WEBHOOK_CONCURRENCY: String(inFlight) }),
    ),
  );
  // CPU per delivery: the workers, the receiver, and the bench database's backends (its WAL writer
  // and other background processes are not told apart from other clusters' on a shared machine).
  const workerPids = new Set(children.map((c) => c.pid));
  const classify = (cmdline: string, pid: number) =>
    workerPids.has(pid)
      ? 'worker'
      : cmdline.includes('delivery/receiver.ts')
        ? 'receiver'
        : cmdline.startsWith('postgres:') && cmdline.includes(` ${dbName} `)
          ? 'postgres'
          : undefined;
  // A backlog of `n` deliveries in one transaction (events `<prefix>_<i>`), then the wake-up.
  const load = (n: number, prefix: string, from: number) =>
    sql.transaction(async (tx) => {
      await tx.query(
        `insert into bench_scale_wh.webhook_events (tenant, id, type, api_version, sequence, data, created_at)
         select 'bench', $2 || i, 'order.created', '2026-01-01', i, '{"i":' || i || ',"pad":"' || repeat('x', 200) || '"}', now()
           from generate_series($3::int, $3::int + $1::int - 1) i`,
        [n, `${prefix}_`, from],
      );
      await tx.query(
        `insert into bench_scale_wh.webhook_deliveries (tenant, endpoint_id, event_id, status, next_attempt_at, created_at)
         select 'bench', $2, $3 || i, 'pending', now(), now() from generate_series($4::int, $4::int + $1::int - 1) i`,
        [n, endpoint.id, `${prefix}_`, from],
      );
      await tx.query('select pg_notify($1, $2)', [notifyChannel('bench_scale_wh'), '']);
    });
  // Warm-up, untimed: each new worker process first runs its delivery path unoptimised (V8 compiles
  // the hot functions after some thousands of calls), and with more processes a larger share of a
  // short run was that start (worker CPU per delivery rose with the process count).
  const warm = warmUpPerProcess * processes;
  await load(warm, 'wrm', backlog + 1);
  await receiver.waitFor(warm, 120_000);
  await receiver.reset();
  // The clock starts when the backlog commits (no worker can see a row before): the bulk insert
  // itself (a few hundred ms for 6,000 events) is not delivery time, and counting it shrank the
  // many-worker rates more than the one-worker rate (the same constant on a shorter run).
  if (statements) await adminQuery(url, 'select pg_stat_statements_reset()');
  await load(backlog, 'evt', 1);
  const started = performance.now();
  const startedAt = new Date();
  const cpuBefore = cpuSnapshot(classify);
  const boxBefore = boxCpu();
  await receiver.waitFor(backlog, 300_000);
  const wallMs = performance.now() - started;
  const rate = backlog / (wallMs / 1000);
  const cpuMs = cpuDelta(cpuBefore, cpuSnapshot(classify));
  const boxAfter = boxCpu();
  const cpu = usPerOperation(cpuMs, backlog);
  // Shares of all the machine's cores over the timed part: every process (box), and the benchmark's.
  const box =
    boxBefore && boxAfter
      ? (boxAfter.busy - boxBefore.busy) / (boxAfter.total - boxBefore.total)
      : Number.NaN;
  const own = cpuMs
    ? Object.values(cpuMs).reduce((x, y) => x + y, 0) / (wallMs * availableParallelism())
    : Number.NaN;
  // Slot occupancy: the timed attempts' own durations ÷ (slots × time).
  const busyMs = await count(
    `select coalesce(sum(duration_ms), 0)::text as n from bench_scale_wh.webhook_attempts where started_at >= '${startedAt.toISOString()}'`,
  );
  const slots = busyMs / (processes * inFlight * wallMs);
  if (statements) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    const { rows } = await c.query<{ calls: string; mean: number; total: number; rows: string; q: string }>(
      `select calls::text, mean_exec_time as mean, total_exec_time as total, rows::text,
              left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 70) as q
         from pg_stat_statements where calls >= 5 and query not like '%pg_stat_statements%'
        order by total_exec_time desc limit 12`,
    );
    await c.end();
    console.error(
      `  statements, workers ×${processes} in flight ${inFlight} (calls, mean ms, total ms, rows):`,
    );
    for (const r of rows)
      console.error(`    ${r.calls}\t${r.mean.toFixed(2)}\t${r.total.toFixed(0)}\t${r.rows}\t${r.q}`);
  }
  await Promise.all(children.map(stop));
  const receipts = await receiver.count();
  const attempts = await count('select count(*)::text as n from bench_scale_wh.webhook_attempts');
  const delivered = await count(
    `select count(*)::text as n from bench_scale_wh.webhook_deliveries where status = 'delivered'`,
  );
  receiver.close();
  await sql.close();
  await adminQuery(url, 'drop schema if exists bench_scale_wh cascade');
  const check = receipts === backlog && attempts === backlog + warm && delivered === backlog + warm;
  console.error(
    `workers ×${processes} (receiver ${receiverDelayMs} ms, ${inFlight} in flight each): ${rate.toFixed(0)} deliveries/s; box CPU ${(box * 100).toFixed(0)}% (bench ${(own * 100).toFixed(0)}%), slots busy ${(slots * 100).toFixed(0)}%; receipts ${receipts}, attempts ${attempts}, delivered ${delivered} (${warm} of them the warm-up's)`,
  );
  return {
    processes,
    rate,
    receipts,
    attempts,
    delivered,
    check,
    receiverDelayMs,
    inFlight,
    cpu,
    box,
    own,
    slots,
    backlog,
  };
}

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
    `| API processes | POST req/s (sum) | ×1 | 2xx | 409 (same key in flight) | payments | keys | no double execution |`,
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
    `| ${r.processes} | ${r.rps.toFixed(0)} | ${(r.rps / apiRuns[0]!.rps).toFixed(2)} | ${r.ok} | ${r.conflicts} | ${r.payments} | ${r.keys} | ${r.check ? 'yes' : '**NO**'} |`,
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
    ...apiRuns.map((r) => [`API ×${r.processes}: payments == stored keys`, r.check]),
    ...workerRuns.map((r) => [`workers ×${r.processes}: receipts == attempts == deliveries`, r.check]),
    ...[...slowRuns, ...slow64Runs].map((r) => [
      `workers ×${r.processes}, ${r.inFlight} in flight, ${SLOW_MS} ms receiver: receipts == attempts == deliveries`,
      r.check,
    ]),
  ]),
});
