// Publish throughput, side by side: Surety's `publish()` (outbox rows in the caller's transaction,
// workers woken by one NOTIFY after COMMIT) against the same transaction with the NOTIFY inside it
// (what the outbox did before, and what DESIGN.md sketched): a transaction that notifies holds
// PostgreSQL's notify-queue lock through its commit, so those commits go one at a time.
// 32 concurrent publishers, one event per transaction, as an API publishes; rounds alternate.
// Prints markdown, then `RESULT {json}` for bench/run.ts.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/delivery/publish.ts [--quick]
import { createPgSql, type Tx } from '@surety/db';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { publishUnwoken, webhooksInternals } from '@surety/webhooks/testing';
import { emitResult } from '../lib/result.js';
import { adminQuery, args, requireDatabaseUrl } from '../lib/stats.js';

const a = args();
const SECONDS = a.num('seconds', a.quick ? 2 : 4);
const ROUNDS = a.quick ? 1 : 3;
const PUBLISHERS = 32;
const url = requireDatabaseUrl('the benchmark creates and drops schema bench_publish');

await adminQuery(url, 'drop schema if exists bench_publish cascade');
const sql = createPgSql({ connectionString: url, max: PUBLISHERS });
const webhooks = new Webhooks({
  sql,
  schema: 'bench_publish',
  allowHttp: true,
  allowList: parseAllowList('127.0.0.1/32'),
});
await webhooks.migrate();
// An endpoint, so every publish creates a delivery (and so wakes workers); nothing is delivered.
await webhooks.createEndpoint(sql, { tenant: 'bench', url: 'http://127.0.0.1:9/none', eventTypes: ['*'] });

const variants: Record<string, (tx: Tx, i: number) => Promise<unknown>> = {
  // the product: NOTIFY after COMMIT, one at a time per process
  surety: (tx, i) => webhooks.publish(tx, { tenant: 'bench', type: 'order.created', data: { i } }),
  // the baseline: the same rows, and the NOTIFY inside the transaction
  'notify-in-transaction': async (tx, i) => {
    // publish()'s own outbox write, with no after-commit wake-up, and the NOTIFY in the transaction
    const event = await publishUnwoken(tx, webhooks, {
      tenant: 'bench',
      type: 'order.created',
      data: { i },
    });
    await tx.query(`select pg_notify($1, '')`, [webhooksInternals(webhooks).channel]);
    return event;
  },
};

let published = 0; // ids stay unique across rounds
async function round(name: string): Promise<number> {
  let n = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: PUBLISHERS }, async () => {
      while (performance.now() < until) {
        n++;
        const i = published++;
        await sql.transaction((tx) => variants[name]!(tx, i));
      }
    }),
  );
  return n / SECONDS;
}

const rates: Record<string, number[]> = { surety: [], 'notify-in-transaction': [] };
for (let r = 0; r < ROUNDS + 1; r++) {
  const order = r % 2 === 0 ? ['surety', 'notify-in-transaction'] : ['notify-in-transaction', 'surety'];
  for (const name of order) {
    const rate = await round(name);
    if (r > 0) rates[name]!.push(rate); // round 0 warms up both
    console.error(`${name}: ${rate.toFixed(0)} publishes/s${r === 0 ? ' (warm-up)' : ''}`);
  }
}
await sql.close();
await adminQuery(url, 'drop schema if exists bench_publish cascade');

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const s = median(rates.surety!);
const b = median(rates['notify-in-transaction']!);
console.log(`| ${PUBLISHERS} publishers, one event per transaction | publishes/s (median) | ratio |`);
console.log('|---|---:|---:|');
console.log(`| Surety publish(), NOTIFY after COMMIT | ${s.toFixed(0)} | ${(s / b).toFixed(2)} |`);
console.log(`| same rows, NOTIFY inside the transaction (baseline) | ${b.toFixed(0)} | 1.00 |`);
console.log(`\n${ROUNDS} round(s) of ${SECONDS} s each way after a warm-up round, order alternating`);
emitResult({
  bench: 'publish',
  metrics: [
    { name: 'surety.rate', value: s, unit: 'publishes/s' },
    { name: 'notify_in_tx.rate', value: b, unit: 'publishes/s' },
  ],
  ratios: [
    {
      name: 'publish.vs_notify_in_tx',
      value: s / b,
      target: 1,
      op: '>=',
      what: 'publishes/s, NOTIFY after COMMIT ÷ NOTIFY inside the transaction',
    },
  ],
});
