// Extra traffic under a 100%-failing upstream: @surety/fetch with its retry budget (the default:
// retries at most ~10% of requests, plus a floor of 1/s and 10 tokens to start) and without it
// (retryBudget: false, so every call makes all of its 4 attempts). The upstream answers 503 to
// everything and counts what it receives. Backoff is shrunk to 1-2 ms so the run is short; the budget
// does not depend on it. Prints a markdown table, then `RESULT {json}` for bench/run.ts.
//
//   npm run build && node --import tsx bench/client/budget.ts [--calls 3000]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFetch } from '@surety/fetch';
import { emitResult } from '../lib/result.js';
import { args } from '../lib/stats.js';

const a = args();
const calls = a.num('calls', a.quick ? 1500 : 3000);
const concurrency = 16;

let received = 0;
const server = createServer((req, res) => {
  received++;
  req.resume();
  res.writeHead(503, { 'content-length': 0 }).end();
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/thing`;

async function run(label: string, budget: boolean) {
  const client = createFetch({ baseDelayMs: 1, maxDelayMs: 2, ...(budget ? {} : { retryBudget: false }) });
  received = 0;
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next++;
        try {
          const res = await client(url);
          await res.arrayBuffer();
          if (res.status >= 500) failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  const extra = (received - calls) / calls;
  console.error(
    `${label}: ${calls} calls → ${received} requests upstream (+${(extra * 100).toFixed(1)}%) in ${seconds.toFixed(1)} s`,
  );
  return { label, received, extra, failed, seconds };
}

const withBudget = await run('with budget (default)', true);
const without = await run('without budget (retryBudget: false)', false);
server.close();
server.closeAllConnections();

console.log(
  `| @surety/fetch, upstream answers 503 to all, ${calls} calls, ${concurrency} at a time | requests upstream | extra traffic |`,
);
console.log('|---|---:|---:|');
for (const r of [withBudget, without])
  console.log(`| ${r.label} | ${r.received} | +${(r.extra * 100).toFixed(1)}% |`);
emitResult({
  bench: 'client-budget',
  metrics: [
    { name: 'with.requests', value: withBudget.received, unit: 'requests' },
    { name: 'with.extra', value: withBudget.extra * 100, unit: '%' },
    { name: 'without.requests', value: without.received, unit: 'requests' },
    { name: 'without.extra', value: without.extra * 100, unit: '%' },
  ],
  ratios: [
    {
      name: 'client.budget_extra',
      value: withBudget.extra,
      target: 0.15,
      op: '<=',
      what: 'extra upstream requests ÷ calls, 100%-failing upstream, with the budget (design: ~10% plus a small floor)',
    },
    {
      name: 'client.no_budget_extra',
      value: without.extra,
      what: 'the same without the budget (4 attempts per call)',
    },
  ],
  checks: {
    'every call failed (as the upstream does)': withBudget.failed === calls && without.failed === calls,
  },
});
