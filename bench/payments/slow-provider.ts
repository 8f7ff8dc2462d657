// A slow payment provider must not slow anything else (issue 32): the service (pool of 10) answers
// GET /v1/payments/{id} under a steady load, first alone, then while 50 payments at a time wait on a
// provider answering in 2 s. No transaction is open while the provider is called, so the GETs' p99
// should barely move: target with ÷ without ≤ 1.5. One process: the service, the simulated provider
// (its wait is a timer) and the load. Run: DATABASE_URL=… /work/bin/testslot --exclusive \
//   node --conditions=@surety/source --import tsx bench/payments/slow-provider.ts
import { openSql } from '@surety/db';
import { buildApp, parseApiKeys, runMigrations } from 'surety';
import { startSimulator } from '../../apps/server/src/psp/serve.js';
import { TEST_CARDS } from '../../apps/server/src/psp/simulator.js';
import { percentile, requireDatabaseUrl, round, roundRatios } from '../lib/stats.js';

process.env.NODE_ENV ??= 'production';
const databaseUrl = requireDatabaseUrl('bench/payments/slow-provider');
const WINDOW_MS = Number(process.env.WINDOW_MS ?? 8_000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const schema = 'bench_psp';
const sim = await startSimulator({ slowMs: 2_000 });
const sql = await openSql({ databaseUrl, max: 10 });
await runMigrations(sql, schema);
const app = await buildApp({
  sql,
  config: {
    apiKeys: parseApiKeys('bench:sk_bench_0123456789abcdef'),
    bodyLimit: 65_536,
    idempotencyTtlMs: 86_400_000,
    schema,
    pspUrl: sim.url,
  },
});
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const headers = { authorization: 'Bearer sk_bench_0123456789abcdef', 'content-type': 'application/json' };
let n = 0;
const pay = async (card: string) => {
  const res = await fetch(`${url}/v1/payments`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': `bench-${process.pid}-${++n}` },
    body: JSON.stringify({ amount: '100', currency: 'USD', customerId: 'cus_b', paymentMethod: card }),
  });
  const body = (await res.json()) as { id: string };
  if (res.status !== 201) throw new Error(`payment answered ${res.status}`);
  return body.id;
};
const id = await pay(TEST_CARDS.succeeds);

/** GETs with `concurrency` clients for the window; their latencies (ms). */
async function reads(concurrency: number): Promise<number[]> {
  const until = Date.now() + WINDOW_MS;
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const t0 = performance.now();
        const res = await fetch(`${url}/v1/payments/${id}`, { headers });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`GET answered ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

/** 50 payments at a time against the slow card, for as long as `running`. */
function slowPayments(): { stop(): Promise<number> } {
  let running = true;
  let done = 0;
  const lanes = Array.from({ length: 50 }, async () => {
    while (running) {
      await pay(TEST_CARDS.slow);
      done++;
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(lanes);
      return done;
    },
  };
}

await reads(4); // warm-up
// Rounds, each its own window without, then with the slow payments: on a shared 2-core machine one
// window pair is at the mercy of whatever else ran then (one run read 1.25, the next 2.08 while a
// typecheck ran beside it); the median of the rounds' ratios, and the A/A spread, say how sure it is.
const rounds: { before: number[]; during: number[] }[] = [];
let payments = 0;
for (let r = 0; r < ROUNDS; r++) {
  const before = await reads(8);
  const load = slowPayments();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const during = await reads(8);
  payments += await load.stop();
  rounds.push({ before, during });
}
const ratios = roundRatios(rounds, 99);
const all = (k: 'before' | 'during') => rounds.flatMap((r) => r[k]);
const result = {
  benchmark: 'payments/slow-provider',
  pool: 10,
  slowPayments: 50,
  providerMs: 2_000,
  windowMs: WINDOW_MS,
  rounds: ROUNDS,
  reads: { without: all('before').length, with: all('during').length },
  p50Ms: { without: round(percentile(all('before'), 50)), with: round(percentile(all('during'), 50)) },
  p99Ms: { without: round(percentile(all('before'), 99)), with: round(percentile(all('during'), 99)) },
  p99Ratio: round(ratios.median),
  p99RatioByRound: ratios.ratios.map((x) => round(x)),
  aaByRound: ratios.aa.map((x) => round(x)),
  target: '≤ 1.5',
  slowPaymentsCompleted: payments,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
await app.close();
await sql.close();
await sim.close();
