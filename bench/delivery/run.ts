// Delivery benchmark on real PostgreSQL, one run, side by side:
//   ceiling  a plain undici Pool POST loop to the receiver (no database at all)
//   surety   events published through the outbox, delivered by one DeliveryWorker
//   pg-boss  the same job with pg-boss 10: jobs inserted in batch, a worker POSTing each via undici
// plus Surety's publish→delivery latency at 50% of its measured peak rate.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/delivery/run.ts [--quick]
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createPgSql } from '@surety/db';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { Pool } from 'undici';

const quick = process.argv.includes('--quick');
const N = Number(process.env.EVENTS ?? (quick ? 5000 : 20000));
const CONCURRENCY = 64;
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('set DATABASE_URL (the benchmark creates and drops schemas bench_wh and bench_pgboss)');
  process.exit(2);
}

const receiver: ChildProcess = fork(fileURLToPath(new URL('receiver.ts', import.meta.url)), {
  execArgv: ['--import', 'tsx'],
});
const ask = <T>(cmd: string) =>
  new Promise<T>((resolve) => {
    receiver.once('message', (m) => resolve(m as T));
    receiver.send({ cmd });
  });
const { port } = await new Promise<{ port: number }>((r) =>
  receiver.once('message', (m) => r(m as { port: number })),
);
const target = `http://127.0.0.1:${port}/hooks`;
const body = (i: number) =>
  JSON.stringify({
    id: `evt_${i}`,
    type: 'order.created',
    apiVersion: 'bench',
    createdAt: new Date().toISOString(),
    sequence: i,
    data: { i, pad: 'x'.repeat(200) },
  });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};

async function waitForCount(n: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { count } = await ask<{ count: number }>('stats');
    if (count >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${count} of ${n} arrived`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function admin(sqlText: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(sqlText);
  await c.end();
}

// --- ceiling -------------------------------------------------------------------------------------
async function ceiling(): Promise<number> {
  await ask('reset');
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const res = await pool.request({
          path: '/hooks',
          method: 'POST',
          body: body(i),
          headers: { 'content-type': 'application/json' },
        });
        await res.body.dump();
      }
    }),
  );
  const secs = (performance.now() - started) / 1000;
  await pool.close();
  return N / secs;
}

// --- surety --------------------------------------------------------------------------------------
async function surety(): Promise<{ rate: number; p50: number; p99: number; latencyRate: number }> {
  await admin('drop schema if exists bench_wh cascade');
  const sql = createPgSql({ connectionString: url, max: 10 });
  const webhooks = new Webhooks({
    sql,
    schema: 'bench_wh',
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  await webhooks.createEndpoint(sql, { tenant: 'bench', url: target, eventTypes: ['*'] });
  // throughput: a backlog of N events, then one worker drains it
  for (let i = 0; i < N; i += 500) {
    await sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(N, i + 500); j++)
        await webhooks.publish(tx, {
          tenant: 'bench',
          type: 'order.created',
          data: { i: j, pad: 'x'.repeat(200) },
        });
    });
  }
  await ask('reset');
  // the worker has its own pool, as it would in its own process: publishers never queue in front of its claims
  const workerSql = createPgSql({ connectionString: url, max: 4 });
  const workerHooks = new Webhooks({
    sql: workerSql,
    schema: 'bench_wh',
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  const worker = new DeliveryWorker({
    webhooks: workerHooks,
    concurrency: CONCURRENCY,
    batchSize: 100,
    listen: true,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  const started = performance.now();
  await worker.start();
  await waitForCount(N, 300_000);
  const rate = N / ((performance.now() - started) / 1000);
  // latency at half the peak rate: one event per transaction, as an API would publish them
  await ask('reset');
  const latencyRate = Math.max(50, Math.floor(rate * Number(process.env.LATENCY_SHARE ?? 0.5)));
  const seconds = quick ? 3 : 6;
  const total = latencyRate * seconds;
  const t0 = performance.now();
  const inflight = new Set<Promise<unknown>>();
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / latencyRate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    // at most 10 publishing transactions in flight (the pool's size), as 10 API connections would
    while (inflight.size >= 10) await Promise.race(inflight);
    const p = sql
      .transaction((tx) => webhooks.publish(tx, { tenant: 'bench', type: 'order.created', data: { i } }))
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await waitForCount(total, 60_000);
  const { latencies } = await ask<{ latencies: number[] }>('stats');
  await worker.stop();
  await workerSql.close();
  await sql.close();
  await admin('drop schema if exists bench_wh cascade');
  return { rate, p50: pct(latencies, 50), p99: pct(latencies, 99), latencyRate };
}

// --- pg-boss -------------------------------------------------------------------------------------
async function pgboss(): Promise<number> {
  await admin('drop schema if exists bench_pgboss cascade');
  const boss = new PgBoss({ connectionString: url, schema: 'bench_pgboss', max: 10 });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('deliver');
  for (let i = 0; i < N; i += 1000) {
    await boss.insert(
      Array.from({ length: Math.min(1000, N - i) }, (_, k) => ({ name: 'deliver', data: { i: i + k } })),
    );
  }
  await ask('reset');
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  const started = performance.now();
  // its best shape here: batches fetched by two polling loops, each batch POSTed concurrently
  for (let loop = 0; loop < 2; loop++) {
    await boss.work<{ i: number }>(
      'deliver',
      { batchSize: 500, pollingIntervalSeconds: 0.5 },
      async (jobs) => {
        await Promise.all(
          jobs.map(async (job) => {
            const res = await pool.request({
              path: '/hooks',
              method: 'POST',
              body: body(job.data.i),
              headers: { 'content-type': 'application/json' },
            });
            await res.body.dump();
            if (res.statusCode >= 300) throw new Error(`status ${res.statusCode}`);
          }),
        );
      },
    );
  }
  await waitForCount(N, 300_000);
  const rate = N / ((performance.now() - started) / 1000);
  await boss.stop({ graceful: false, wait: true }).catch(() => {});
  await pool.close();
  await admin('drop schema if exists bench_pgboss cascade');
  return rate;
}

const ceil = await ceiling();
console.error(`ceiling: ${ceil.toFixed(0)}/s`);
const s = await surety();
console.error(
  `surety: ${s.rate.toFixed(0)}/s; latency at ${s.latencyRate}/s: p50 ${s.p50} ms, p99 ${s.p99} ms`,
);
const b = await pgboss();
console.error(`pg-boss: ${b.toFixed(0)}/s`);
receiver.send({ cmd: 'exit' });

console.log(`| configuration (${N} deliveries, ${CONCURRENCY} in flight) | deliveries/s | ratio |`);
console.log('|---|---|---|');
console.log(`| undici POST loop (ceiling) | ${ceil.toFixed(0)} | 1.00 |`);
console.log(
  `| Surety outbox + DeliveryWorker | ${s.rate.toFixed(0)} | ${(s.rate / ceil).toFixed(2)} of ceiling, ${(s.rate / b).toFixed(2)}× pg-boss |`,
);
console.log(`| pg-boss 10 worker + undici | ${b.toFixed(0)} | ${(b / ceil).toFixed(2)} of ceiling |`);
console.log(
  `\nSurety publish→delivery latency at ${s.latencyRate}/s (50% of its peak): p50 ${s.p50} ms, p99 ${s.p99} ms`,
);
