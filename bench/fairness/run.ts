// Fairness benchmark on real PostgreSQL (issue 15, D3), side by side in one run:
//   quiet    a victim tenant's events, published one per transaction at a steady rate, delivered by
//            one `surety worker` process (the product's defaults: 64 in flight, caps 16 per endpoint
//            and 48 per tenant, 10 s timeout) to a receiver that answers at once
//   hostile  the same, while a hostile tenant's 500 deliveries (50 endpoints × 10 events) hang on a
//            receiver that never answers
// The victim's publish→delivery p50/p99 in both, and the ratio of the p99s. Before the caps, the
// hostile tenant's attempts took all 64 slots of the worker and the victim's events waited for their
// timeouts (issue 15: 274 ms → ~50 s).
// Prints markdown, then `RESULT {json}` for bench/run.ts. Loopback only; bounded in count and time.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/fairness/run.ts [--quick]
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPgSql, type Sql } from '@surety/db';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '../lib/receiver.js';
import { emitResult } from '../lib/result.js';
import { adminQuery, args, percentile, requireDatabaseUrl } from '../lib/stats.js';
import { spawnSuretyWorker } from '../lib/worker.js';

const a = args();
const RATE = a.num('rate', 50);
const SECONDS = a.num('seconds', a.quick ? 3 : 8);
const HOSTILE_ENDPOINTS = 50;
const HOSTILE_EVENTS = 10;
const SCHEMA = 'bench_fair';
const url = requireDatabaseUrl('the benchmark creates and drops schema bench_fair');

/** Holds every request until the sender gives up: a receiver that never answers. */
async function hangingServer(): Promise<{ server: Server; port: number; open: () => number }> {
  let open = 0;
  const server = createServer((req, res) => {
    open++;
    res.on('close', () => open--);
    req.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, open: () => open };
}

async function setup(): Promise<{ sql: Sql; webhooks: Webhooks }> {
  await adminQuery(url, `drop schema if exists ${SCHEMA} cascade`);
  const sql = createPgSql({ connectionString: url, max: 16 });
  const webhooks = new Webhooks({
    sql,
    schema: SCHEMA,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  return { sql, webhooks };
}

const receiver = await startReceiver();
const hang = await hangingServer();

/** The victim's latencies over SECONDS at RATE, with or without the hostile tenant's backlog. */
async function run(hostile: boolean): Promise<{ latencies: number[]; hanging: number }> {
  const { sql, webhooks } = await setup();
  await webhooks.createEndpoint(sql, {
    tenant: 'victim',
    url: `http://127.0.0.1:${receiver.port}/hooks`,
    eventTypes: ['*'],
  });
  const child = await spawnSuretyWorker(SCHEMA);
  try {
    // Warm-up: the worker's JIT and connections (counted from zero: the last run's arrivals are in).
    await receiver.reset();
    for (let i = 0; i < 50; i++)
      await sql.transaction((tx) =>
        webhooks.publish(tx, { tenant: 'victim', type: 'order.created', data: { i } }),
      );
    await receiver.waitFor(50, 30_000);
    if (hostile) {
      for (let e = 0; e < HOSTILE_ENDPOINTS; e++)
        await webhooks.createEndpoint(sql, {
          tenant: 'hostile',
          url: `http://127.0.0.1:${hang.port}/e${e}`,
          eventTypes: ['*'],
        });
      await sql.transaction(async (tx) => {
        for (let i = 0; i < HOSTILE_EVENTS; i++)
          await webhooks.publish(tx, { tenant: 'hostile', type: 'order.created', data: { i } });
      });
      const deadline = Date.now() + 10_000;
      while (hang.open() < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    }
    await receiver.reset();
    const total = Math.ceil(RATE * SECONDS);
    const t0 = performance.now();
    let hanging = 0;
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i * 1000) / RATE - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      hanging = Math.max(hanging, hang.open());
      pending.push(
        sql.transaction((tx) =>
          webhooks.publish(tx, { tenant: 'victim', type: 'order.created', data: { i } }),
        ),
      );
    }
    await Promise.all(pending);
    await receiver.waitFor(total, 120_000);
    return { latencies: await receiver.latencies(), hanging };
  } finally {
    child.kill('SIGKILL'); // its hanging attempts would hold a graceful stop for their timeout
    await new Promise((r) => child.once('exit', r));
    hang.server.closeAllConnections();
    await sql.close();
    await adminQuery(url, `drop schema if exists ${SCHEMA} cascade`);
  }
}

// Without the hostile tenant before and after the run with it (pooled), so that drift on the shared
// machine and the first run's warm-up fall on both sides.
const stats = (xs: number[], hanging: number) => ({
  p50: percentile(xs, 50),
  p99: percentile(xs, 99),
  n: xs.length,
  hanging,
});
const before = await run(false);
const during = await run(true);
const after = await run(false);
const quiet = stats([...before.latencies, ...after.latencies], 0);
const hostile = stats(during.latencies, during.hanging);
console.error(`quiet: p50 ${quiet.p50} ms, p99 ${quiet.p99} ms`);
console.error(`hostile: p50 ${hostile.p50} ms, p99 ${hostile.p99} ms, ${hostile.hanging} hanging`);
receiver.close();
hang.server.close();

const ratio = hostile.p99 / quiet.p99;
console.log(
  `| victim tenant, ${RATE}/s for ${SECONDS} s (one worker process, defaults) | deliveries | p50 ms | p99 ms | hostile attempts hanging at once |`,
);
console.log('|---|---:|---:|---:|---:|');
console.log(`| no hostile tenant (before and after) | ${quiet.n} | ${quiet.p50} | ${quiet.p99} | 0 |`);
console.log(
  `| hostile tenant's ${HOSTILE_ENDPOINTS * HOSTILE_EVENTS} deliveries hanging | ${hostile.n} | ${hostile.p50} | ${hostile.p99} | ${hostile.hanging} |`,
);
console.log(`\np99 with ÷ without the hostile tenant: ${ratio.toFixed(2)}`);

emitResult({
  bench: 'fairness',
  metrics: [
    { name: 'quiet.p50', value: quiet.p50, unit: 'ms' },
    { name: 'quiet.p99', value: quiet.p99, unit: 'ms' },
    { name: 'hostile.p50', value: hostile.p50, unit: 'ms' },
    { name: 'hostile.p99', value: hostile.p99, unit: 'ms' },
    { name: 'hostile.hanging', value: hostile.hanging, unit: 'attempts' },
  ],
  ratios: [
    {
      name: 'fairness.p99_ratio',
      value: ratio,
      target: 2,
      op: '<=',
      what: "victim's p99 with ÷ without a hostile tenant's 500 hanging attempts",
    },
  ],
});
process.exit(0);
