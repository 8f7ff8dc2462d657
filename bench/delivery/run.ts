// Delivery benchmark on real PostgreSQL, one run, side by side:
//   ceiling          a plain undici Pool POST loop to the receiver (no database at all)
//   surety           events published through the outbox, delivered by one DeliveryWorker
//   pg-boss          the same job with pg-boss 10: jobs inserted in batch, a worker POSTing each via undici;
//                    its batch sizes searched for the lowest CPU per job, and two information rows at
//                    2,000 per batch: the bare POST, and an attempt row recorded per job as Surety does
//   graphile-worker  the same job with graphile-worker 0.16.6 (the last release for Node 20; the local
//                    queue of 0.17+ needs Node 22): jobs added in SQL, 64 concurrent jobs POSTing via undici
// Every job sends Surety's request, byte for byte, signed per job by Surety's own signSync
// (same-post.ts); the ceiling and pg-boss's bare row send the same body unsigned.
// plus Surety's publish→delivery latency at 25, 50 and 75% of its measured peak rate, with events
// published one per transaction, as an API does, and the CPU per delivery of each process (the
// ceiling's, Surety's and pg-boss's throughput phases: issue 22's CPU ratios).
// Prints a markdown table, then `RESULT {json}` for bench/run.ts.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/delivery/run.ts [--quick]
import { loadavg } from 'node:os';
import { generateSecret } from '@surety/webhook-verify';
import { Logger, run as runGraphile } from 'graphile-worker';
import pg from 'pg';
import { Pool } from 'undici';
import { measureAllocations } from '../lib/alloc.js';
import { type CpuSnapshot, cpuDelta, cpuSnapshot, postgresServer, usPerOperation } from '../lib/cpu.js';
import { startReceiver } from '../lib/receiver.js';
import { adminQuery, args, requireDatabaseUrl } from '../lib/stats.js';
import { type BossBench, type BossMode, pgboss, pgbossModes } from './pgboss.js';
import { report } from './report.js';
import { bareRequest, type EventJob, eventJob, type Request, signedRequest } from './same-post.js';
import { type SuretyBench, surety } from './surety.js';

const a = args();
const N = a.num('events', a.quick ? 4000 : 20000);
const CONCURRENCY = 64;
const LATENCY_SECONDS = a.num('latency-seconds', a.quick ? 2 : 5);
const url = requireDatabaseUrl(
  'the benchmark creates and drops schemas bench_wh, bench_pgboss, bench_graphile',
);

const receiver = await startReceiver();
const { port } = receiver;
const target = `http://127.0.0.1:${port}/hooks`;

const waitForCount = (n: number, timeoutMs: number) => receiver.waitFor(n, timeoutMs);
/**
 * Resolves once `left()` answers 0: every job's outcome written (pg-boss completes a batch after its
 * last POST arrived, Surety writes its last attempts after theirs). Polled after the last arrival
 * only, every 20 ms, at most 60 s.
 */
async function waitForOutcomes(left: () => Promise<number>) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const n = await left();
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} outcomes still unwritten after 60 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// CPU per delivery, by process, during the measured part of the ceiling's, Surety's and pg-boss's
// throughput phases (what bounds the rate when everything shares the machine's cores). Each contender
// runs in this process (its group is named for it), against the same receiver process and the same
// PostgreSQL server: that server's postmaster and what it forked, pg-boss's backends as Surety's, and
// none of another cluster's processes on the host (bench/lib/cpu.ts).
const postgres = await postgresServer(url);
const cpuGroups = (self: string) => (cmdline: string, pid: number, ppid: number) =>
  pid === process.pid ? self : pid === receiver.pid ? 'receiver' : postgres(cmdline, pid, ppid);
/** µs per delivery by group, per contender: ceiling, surety, pgboss2000, pgboss32, pgboss_bare, pgboss_recorded. */
const cpu: Record<string, Record<string, number>> = {};
/** Bytes this process allocated on its heap per delivery, per contender (bench/lib/alloc.ts). */
const alloc: Record<string, number> = {};
const measureCpu = (self: string) => {
  const before: CpuSnapshot = cpuSnapshot(cpuGroups(self));
  const allocated = measureAllocations();
  return (key: string | undefined, n: number) => {
    const us = usPerOperation(cpuDelta(before, cpuSnapshot(cpuGroups(self))), n);
    const bytes = allocated(n);
    if (us && key) cpu[key] = us;
    if (key) alloc[key] = bytes;
    return us;
  };
};

// The peers do the same job as Surety's worker per delivery: the envelope from the job's stored
// fields, signed per job with Surety's signSync and a secret made as Surety makes an endpoint's, the
// same headers, POSTed through undici (same-post.ts; its test compares it with Surety's request).
const SECRETS = [generateSecret()];
/** POSTs `r`; the status, for an attempt record. */
async function send(pool: Pool, r: Request): Promise<number> {
  const res = await pool.request({ path: '/hooks', method: 'POST', body: r.body, headers: r.headers });
  await res.body.dump();
  if (res.statusCode >= 300) throw new Error(`status ${res.statusCode}`);
  return res.statusCode;
}
const signed = (job: EventJob) => signedRequest(job, SECRETS);

const bossBench: BossBench = {
  url,
  port,
  concurrency: CONCURRENCY,
  receiver,
  waitForOutcomes,
  measureCpu: (self) => {
    const end = measureCpu(self);
    return (n) => end(undefined, n);
  },
  send,
  signed,
};

// --- ceiling -------------------------------------------------------------------------------------
async function ceiling(): Promise<number> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  const loop = async (n: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < n) await send(pool, bareRequest(eventJob(next++)));
      }),
    );
  };
  await loop(Math.min(N, 2000)); // warm-up: JIT, connections
  await receiver.reset();
  const measured = measureCpu('client');
  const started = performance.now();
  await loop(N);
  const secs = (performance.now() - started) / 1000;
  measured('ceiling', N);
  await pool.close();
  return N / secs;
}

// --- surety (surety.ts) ----------------------------------------------------------------------------
const suretyBench: SuretyBench = {
  url,
  target,
  receiver,
  concurrency: CONCURRENCY,
  latencySeconds: LATENCY_SECONDS,
  measureCpu,
  waitForOutcomes,
};

// --- graphile-worker -----------------------------------------------------------------------------
async function graphile(N: number): Promise<number> {
  await adminQuery(url, 'drop schema if exists bench_graphile cascade');
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  const options = {
    connectionString: url,
    schema: 'bench_graphile',
    concurrency: CONCURRENCY,
    maxPoolSize: 10,
    pollInterval: 500,
    noHandleSignals: true,
    logger: new Logger(() => () => {}),
  };
  // Migrate with a runner that has nothing to do, then load the backlog in SQL (add_job per row),
  // each job the event as pg-boss's carries it.
  const setup = await runGraphile({ ...options, concurrency: 1, taskList: {} });
  await setup.stop();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    for (let i = 0; i < N; i += 1000) {
      const jobs = Array.from({ length: Math.min(1000, N - i) }, (_, k) => eventJob(i + k));
      await c.query(`select bench_graphile.add_job('deliver', j) from json_array_elements($1::json) j`, [
        JSON.stringify(jobs),
      ]);
    }
  } finally {
    await c.end();
  }
  await receiver.reset();
  const started = performance.now();
  const runner = await runGraphile({
    ...options,
    taskList: {
      deliver: async (payload) => {
        await send(pool, signed(payload as EventJob));
      },
    },
  });
  await waitForCount(N, 300_000);
  const rate = N / ((performance.now() - started) / 1000);
  await runner.stop();
  await pool.close();
  await adminQuery(url, 'drop schema if exists bench_graphile cascade');
  return rate;
}

const load = loadavg()[0]!;
// Alternate the order run by run (BENCH_RUN from bench/run.ts) so drift hits each contender alike.
const reverse = Number(process.env.BENCH_RUN ?? 0) % 2 === 1;
// Every contender first runs once on a smaller backlog (as the ceiling's warm-up loop): JIT, pools,
// PostgreSQL's caches; pg-boss at batches of 32 (~130/s) is run on a smaller backlog.
const WARM = Math.min(N, 2000);
const steps = [
  ['ceiling', ceiling],
  [
    'surety',
    async () => {
      await surety(suretyBench, WARM, false);
      return surety(suretyBench, N);
    },
  ],
  [
    'pg-boss',
    async () => {
      const r = await pgbossModes(bossBench, N, 3);
      if (r.cpu.signed) cpu['pgboss2000'] = r.cpu.signed;
      if (r.cpu.bare) cpu['pgboss_bare'] = r.cpu.bare;
      if (r.cpu.recorded) cpu['pgboss_recorded'] = r.cpu.recorded;
      return r.rate;
    },
  ],
  [
    'pg-boss-32',
    async () => {
      const { rate, us } = await pgboss(bossBench, 32, Math.min(N, a.quick ? 1000 : 4000));
      if (us) cpu['pgboss32'] = us;
      return rate;
    },
  ],
  [
    'graphile-worker',
    async () => {
      await graphile(WARM);
      return graphile(N);
    },
  ],
] as const;
const got: Record<string, unknown> = {};
for (const [name, fn] of reverse ? [...steps].reverse() : steps) {
  got[name] = await fn();
  console.error(`${name} done`);
}
receiver.close();
report({
  N,
  concurrency: CONCURRENCY,
  cpu,
  alloc,
  ceil: got['ceiling'] as number,
  s: got['surety'] as Awaited<ReturnType<typeof surety>>,
  modes: got['pg-boss'] as Record<BossMode, number>,
  b32: got['pg-boss-32'] as number,
  g: got['graphile-worker'] as number,
  load,
});
// A run whose order ended with the ceiling once stayed alive after printing its result (a handle left
// open by one of the peers' pools); the results are complete here, so leave at once.
process.exit(0);
