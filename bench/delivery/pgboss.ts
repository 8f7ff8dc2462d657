// pg-boss 10 in bench/delivery (run.ts): a backlog of N jobs, each the event as Surety's outbox row
// carries it, drained by two pg-boss workers whose handler POSTs each job through undici. Its
// modes: the same POST as Surety's (the target's), the same body unsigned, and the same POST with
// an attempt row recorded per job (both for information).
import PgBoss from 'pg-boss';
import { Pool } from 'undici';
import { adminQuery } from '../lib/stats.js';
import { cpuSum } from '../lib/targets.js';
import { bareRequest, type EventJob, eventJob, type Request } from './same-post.js';

/**
 * How pg-boss's job POSTs: `signed`, the same POST as Surety's (the target's); `bare`, the same body
 * unsigned (information: what the rows before session 10 measured, near enough); `recorded`, signed
 * and an attempt row per job as Surety's worker writes (information, below).
 */
export type BossMode = 'signed' | 'bare' | 'recorded';

// The attempt record of `recorded`: Surety's webhook_attempts columns and its two indexes (by
// delivery, by endpoint), one row per job, written by one INSERT per batch of results, as Surety's
// outcome writer batches them, before pg-boss completes the batch.
const ATTEMPTS = `create table bench_pgboss.attempts (
  id text primary key, job_id uuid not null, tenant text not null, endpoint_id text not null,
  attempt int not null, started_at timestamptz not null, duration_ms int not null, status int,
  response_excerpt text, error_code text, error_message text);
create index attempts_by_job on bench_pgboss.attempts (job_id, started_at, id);
create index attempts_by_endpoint on bench_pgboss.attempts (tenant, endpoint_id, started_at desc)`;
const RECORD = `insert into bench_pgboss.attempts (id, job_id, tenant, endpoint_id, attempt, started_at, duration_ms, status)
  select 'att_' || a.job_id, a.job_id, 'bench', 'ep_bench', 1, a.started_at, a.duration_ms, a.status
    from unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[]) as a(job_id, started_at, duration_ms, status)`;

/** What a pg-boss run needs of the benchmark (run.ts): its receiver, its CPU measure, its POST. */
export interface BossBench {
  url: string;
  port: number;
  /** POSTs in flight in all (two loops, each half). */
  concurrency: number;
  receiver: { reset(): Promise<void>; waitFor(n: number, timeoutMs: number): Promise<void> };
  /** Resolves once `left()` answers 0 (every outcome written). */
  waitForOutcomes(left: () => Promise<number>): Promise<void>;
  /** Starts measuring with this process as `self`; the function returned ends it: µs per job by group. */
  measureCpu(self: string): (n: number) => Record<string, number> | undefined;
  send(pool: Pool, r: Request): Promise<number>;
  /** Surety's signed request for a job (same-post.ts). */
  signed(job: EventJob): Request;
}

/** One run on a fresh schema: its rate at the last arrival, its CPU until the last job completed. */
export async function pgboss(
  x: BossBench,
  batchSize: number,
  N: number,
  mode: BossMode = 'signed',
): Promise<{ rate: number; us: Record<string, number> | undefined }> {
  await adminQuery(x.url, 'drop schema if exists bench_pgboss cascade');
  const boss = new PgBoss({ connectionString: x.url, schema: 'bench_pgboss', max: 10 });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('deliver');
  if (mode === 'recorded') await adminQuery(x.url, ATTEMPTS);
  // The job carries the event as Surety's outbox row does: the envelope's fields, data as its text.
  for (let i = 0; i < N; i += 1000) {
    await boss.insert(
      Array.from({ length: Math.min(1000, N - i) }, (_, k) => ({ name: 'deliver', data: eventJob(i + k) })),
    );
  }
  await x.receiver.reset();
  const pool = new Pool(`http://127.0.0.1:${x.port}`, { connections: x.concurrency });
  const db = boss.getDb();
  // From the first fetch until every job is completed, as Surety's until every attempt is recorded:
  // pg-boss's process (its fetch, handler, completion and supervision), its backends and the receiver.
  const measured = x.measureCpu('pg-boss');
  const started = performance.now();
  // pg-boss 10 fetches a batch, runs the handler, completes the batch, then waits out its polling
  // interval (0.5 s at least) before the next fetch. Two shapes: batches of 32 per loop (a failure
  // then retries 32 jobs, and latency stays near the interval), and its throughput-best shape, large
  // batches of 2,000. Two loops, each batch POSTed 32 at a time (64 in flight in all, as the others).
  for (let loop = 0; loop < 2; loop++) {
    await boss.work<EventJob>('deliver', { batchSize, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      const startedAt: Date[] = [];
      const durations: number[] = [];
      const statuses: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: x.concurrency / 2 }, async () => {
          while (next < jobs.length) {
            const k = next++;
            const job = jobs[k]!.data;
            if (mode !== 'recorded') {
              await x.send(pool, mode === 'bare' ? bareRequest(job) : x.signed(job));
              continue;
            }
            const t0 = Date.now();
            statuses[k] = await x.send(pool, x.signed(job));
            startedAt[k] = new Date(t0);
            durations[k] = Date.now() - t0;
          }
        }),
      );
      if (mode === 'recorded')
        await db.executeSql(RECORD, [jobs.map((j) => j.id), startedAt, durations, statuses]);
    });
  }
  await x.receiver.waitFor(N, 300_000);
  const rate = N / ((performance.now() - started) / 1000);
  await x.waitForOutcomes(() => boss.getQueueSize('deliver', { before: 'completed' }));
  const us = measured(N);
  await boss.stop({ graceful: false, wait: true }).catch(() => {});
  await pool.close();
  await adminQuery(x.url, 'drop schema if exists bench_pgboss cascade');
  return { rate, us };
}

/**
 * pg-boss at 2,000 per batch in its three modes, in rounds of alternating order (signed, bare,
 * recorded, then the other way round): each a fresh schema and backlog of N. Per mode, the round of
 * the median CPU per job (its rate beside it): one run of each showed 120 to 257 µs of PostgreSQL per
 * job for the same mode, by where it fell in the run.
 */
export async function pgbossModes(
  x: BossBench,
  N: number,
  rounds: number,
): Promise<{ rate: Record<BossMode, number>; cpu: Partial<Record<BossMode, Record<string, number>>> }> {
  const modes: BossMode[] = ['signed', 'bare', 'recorded'];
  // A warm-up round, not measured: in two runs the first measured round was the dearest by 60–200 µs
  // per job (the server still busy after the phase before), and one mode always drew it.
  for (const mode of modes) await pgboss(x, 2000, Math.min(N, 2000), mode);
  const runs: Record<BossMode, { rate: number; us: Record<string, number> | undefined }[]> = {
    signed: [],
    bare: [],
    recorded: [],
  };
  for (let r = 0; r < rounds; r++)
    for (const mode of r % 2 === 0 ? modes : [...modes].reverse())
      runs[mode].push(await pgboss(x, 2000, N, mode));
  const rate = {} as Record<BossMode, number>;
  const cpu: Partial<Record<BossMode, Record<string, number>>> = {};
  for (const mode of modes) {
    const sorted = [...runs[mode]].sort((x, y) => cpuSum(x.us) - cpuSum(y.us));
    const mid = sorted[Math.floor((sorted.length - 1) / 2)]!;
    if (mid.us) cpu[mode] = mid.us;
    console.error(
      `pg-boss ${mode}: ${runs[mode].map((r) => cpuSum(r.us).toFixed(0)).join(', ')} µs per job by round`,
    );
    rate[mode] = mid.rate;
  }
  return { rate, cpu };
}
