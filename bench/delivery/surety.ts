// Surety's contender in bench/delivery (run.ts): a backlog published through the outbox and drained by
// one DeliveryWorker in this process, then publish→delivery latency at 25, 50 and 75% of that peak with
// the worker in its own process (`surety worker`).
import { createPgSql } from '@surety/db';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import type { startReceiver } from '../lib/receiver.js';
import { adminQuery, percentile } from '../lib/stats.js';
import { OPEN_CAPS, spawnSuretyWorker } from '../lib/worker.js';

/** What Surety's run needs of the benchmark (run.ts). */
export interface SuretyBench {
  url: string;
  /** The receiver's URL, the endpoint's. */
  target: string;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** Attempts in flight in the worker. */
  concurrency: number;
  /** Seconds of publishing at each point of the latency curve. */
  latencySeconds: number;
  /** Starts measuring with this process as `self`; the function returned ends it and keeps it as `key`. */
  measureCpu(self: string): (key: string | undefined, n: number) => unknown;
  /** Resolves once `left()` answers 0 (every outcome written). */
  waitForOutcomes(left: () => Promise<number>): Promise<void>;
}

export interface LatencyPoint {
  share: number;
  rate: number;
  achieved: number;
  p50: number;
  p99: number;
}

export async function surety(
  x: SuretyBench,
  N: number,
  withLatency = true,
): Promise<{ rate: number; curve: LatencyPoint[] }> {
  const { url, target, receiver, measureCpu, waitForOutcomes } = x;
  const CONCURRENCY = x.concurrency;
  const LATENCY_SECONDS = x.latencySeconds;
  const waitForCount = (n: number, timeoutMs: number) => receiver.waitFor(n, timeoutMs);
  await adminQuery(url, 'drop schema if exists bench_wh cascade');
  const sql = createPgSql({ connectionString: url, max: 16 });
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
  await receiver.reset();
  // One tenant, one endpoint: the fairness caps (32 per endpoint, 48 per tenant by default) would cap
  // this at their share; opened up, as a single-tenant deployment sets them (bench/fairness measures
  // the defaults), to OPEN_CAPS as the latency phase's `surety worker`. The caps count claimed rows
  // not yet finished, queued ones too: at the concurrency (64) they left no room for the next batch
  // while one was in flight, and the worker claimed ~50 rows at a time instead of ~80.
  const worker = new DeliveryWorker({
    webhooks,
    concurrency: CONCURRENCY,
    maxInFlightPerEndpoint: Number(OPEN_CAPS.SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT),
    maxInFlightPerTenant: Number(OPEN_CAPS.SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_TENANT),
    batchSize: 100,
    listen: true,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });
  const measured = measureCpu('worker');
  const started = performance.now();
  await worker.start();
  await waitForCount(N, 300_000);
  const rate = N / ((performance.now() - started) / 1000);
  // CPU until every attempt is recorded, as pg-boss's until every job is completed.
  await waitForOutcomes(async () => {
    const { rows } = await sql.query<{ n: number }>(
      `select count(*)::int as n from bench_wh.webhook_deliveries where status = 'pending'`,
    );
    return rows[0]!.n;
  });
  // The warm-up run's figures are not kept, but its counting is ended all the same.
  measured(withLatency ? 'surety' : undefined, N);
  await worker.stop();
  if (!withLatency) {
    await sql.close();
    return { rate, curve: [] };
  }
  // Latency at 25/50/75% of the peak rate: one event per transaction, as an API would publish them,
  // from this process; the worker in its own process, as `surety worker` runs.
  // The history partitions the service keeps ahead, made first: a new `surety worker` creates them at
  // start, and on this fresh schema its CREATE TABLEs (each waiting up to 2 s for the parents' locks)
  // queued the warm-up's 500 publishes behind them until the pool's 5 s connect timeout failed the
  // run (every delivery run of one full `npm run bench`, session 9).
  await webhooks.maintain({ retentionDays: 30 });
  const child = await spawnSuretyWorker('bench_wh', OPEN_CAPS);
  // Warm-up, not measured: the new worker process's JIT, its connections to PostgreSQL and the
  // receiver (the throughput phase warmed the in-process contenders the same way).
  await receiver.reset();
  await Promise.all(
    Array.from({ length: 500 }, (_, i) =>
      sql.transaction((tx) => webhooks.publish(tx, { tenant: 'bench', type: 'order.created', data: { i } })),
    ),
  );
  await waitForCount(500, 60_000);
  const curve: LatencyPoint[] = [];
  for (const share of [0.25, 0.5, 0.75]) {
    await receiver.reset();
    const target = Math.max(20, Math.floor(rate * share));
    const total = Math.ceil(target * LATENCY_SECONDS);
    const inflight = new Set<Promise<unknown>>();
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / target;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      // Bounded: at most 400 publishes outstanding (the pool has 16 connections).
      if (inflight.size >= 400) await Promise.race(inflight);
      const p = sql.transaction((tx) =>
        webhooks.publish(tx, { tenant: 'bench', type: 'order.created', data: { i } }),
      );
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    }
    const publishSecs = (performance.now() - t0) / 1000;
    await Promise.all(inflight);
    await waitForCount(total, 60_000);
    const latencies = await receiver.latencies();
    curve.push({
      share,
      rate: target,
      achieved: total / publishSecs,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    });
    console.error(
      `surety latency at ${share * 100}% (${target}/s, achieved ${(total / publishSecs).toFixed(0)}/s): p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    );
  }
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await sql.close();
  await adminQuery(url, 'drop schema if exists bench_wh cascade');
  return { rate, curve };
}
