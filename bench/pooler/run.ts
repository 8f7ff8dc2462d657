// What transaction-pooler mode costs: the service answering keyed POST /v1/payments, and delivering
// the payments' webhooks, through PgBouncer (transaction mode, unnamed statements, LISTEN on the
// direct URL) ÷ the same service on the direct URL (named statements), in the same run, rounds
// alternated; and between them the pooler mode on the direct URL (unnamed statements, no PgBouncer),
// which separates the statements' cost from the hop's. Loopback only; bounded in count and time.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench /work/bin/testslot --exclusive \
//     node --conditions=@surety/source --import tsx bench/pooler/run.ts [--quick]
import { randomUUID } from 'node:crypto';
import { createPgSql } from '@surety/db';
import { startReceiver } from '@surety/webhooks/testing';
import { runMigrations } from '../../apps/server/src/server.js';
import { spawnServer } from '../../apps/server/test/spawn.js';
import { startPgBouncer } from '../../scripts/pgbouncer.mjs';

const direct = process.env.DATABASE_URL;
if (!direct) throw new Error('set DATABASE_URL');
const quick = process.argv.includes('--quick');
const POSTS = quick ? 1000 : 3000;
const EVENTS = quick ? 300 : 1000;
const ROUNDS = quick ? 2 : 3;
const CONCURRENCY = 16;
const KEY = 'sk_bench_pooler_0123456789abcdef';
const auth = { authorization: `Bearer ${KEY}` };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function lanes(n: number, job: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

async function postOnce(base: string, i: number, key = randomUUID()) {
  const res = await fetch(`${base}/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key, ...auth },
    body: JSON.stringify({ amount: String(100 + (i % 900)), currency: 'USD', customerId: `cus_bench_${i}` }),
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`POST answered ${res.status}`);
}

const bouncer = await startPgBouncer({ databaseUrl: direct });
const schema = `bench_pooler_${Date.now()}`;
const admin = createPgSql({ connectionString: direct, max: 2 });
await runMigrations(admin, schema);
const modes = {
  direct: { DATABASE_URL: direct },
  unnamed: {
    DATABASE_URL: direct,
    SURETY_DATABASE_POOLER: 'transaction',
    SURETY_DATABASE_DIRECT_URL: direct,
  },
  pooler: {
    DATABASE_URL: bouncer.url,
    SURETY_DATABASE_POOLER: 'transaction',
    SURETY_DATABASE_DIRECT_URL: direct,
  },
} as const;
const results: Record<keyof typeof modes, { posts: number[]; deliveries: number[] }> = {
  direct: { posts: [], deliveries: [] },
  unnamed: { posts: [], deliveries: [] },
  pooler: { posts: [], deliveries: [] },
};
const rx = await startReceiver();
let created = 0;
let endpoint = false;
const drained = () => rx.waitFor(created, 300_000);
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = ['direct', 'unnamed', 'pooler'] as const;
    for (const mode of round % 2 === 0 ? order : [...order].reverse()) {
      const server = await spawnServer({
        schema,
        apiKeys: `bench:${KEY}`,
        env: {
          SURETY_DATABASE_POOLER: '',
          SURETY_DATABASE_DIRECT_URL: '',
          ...modes[mode],
          SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
          SURETY_WEBHOOK_ALLOW_HTTP: 'true',
        },
      });
      try {
        if (!endpoint) {
          const ep = await fetch(`${server.url}/v1/webhook-endpoints`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...auth },
            body: JSON.stringify({ url: rx.url, eventTypes: ['payment.created'] }),
          });
          if (ep.status !== 201) throw new Error(`endpoint: ${ep.status} ${await ep.text()}`);
          endpoint = true;
        }
        const post = async (i: number) => {
          await postOnce(server.url, i);
          created++;
        };
        await lanes(200, post); // warm-up
        await drained();
        // Keyed POSTs (each publishes its payment.created, delivered meanwhile in both modes alike).
        let t = performance.now();
        await lanes(POSTS, post);
        results[mode].posts.push(POSTS / ((performance.now() - t) / 1000));
        await drained();
        // Publish to delivery: EVENTS payments, timed until the receiver has every one.
        t = performance.now();
        await lanes(EVENTS, post);
        await drained();
        results[mode].deliveries.push(EVENTS / ((performance.now() - t) / 1000));
      } finally {
        await server.kill('SIGTERM');
      }
    }
  }
} finally {
  await rx.close();
  await admin.query(`drop schema if exists "${schema}" cascade`).catch(() => {});
  await admin.close();
  await bouncer.stop();
}

const med = (xs: number[]) => median(xs).toFixed(0);
const row = (label: string, pick: (r: { posts: number[]; deliveries: number[] }) => number[]) => {
  const [d, u, p] = [pick(results.direct), pick(results.unnamed), pick(results.pooler)];
  const runs = [d, u, p].map((xs) => xs.map((x) => x.toFixed(0)).join(', ')).join(' / ');
  return `| ${label} | ${med(d)} | ${med(u)} | ${med(p)} | ${(median(u) / median(d)).toFixed(2)} | ${(median(p) / median(u)).toFixed(2)} | ${(median(p) / median(d)).toFixed(2)} | ${runs} |`;
};
console.log(
  `| measure (per second, ${CONCURRENCY} clients) | direct, named | direct, unnamed | through PgBouncer | unnamed ÷ named | PgBouncer ÷ unnamed | PgBouncer ÷ direct | runs (named / unnamed / PgBouncer) |`,
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
console.log(row(`keyed POST /v1/payments (${POSTS} a run)`, (r) => r.posts));
console.log(row(`payment + its webhook delivered (${EVENTS} a run)`, (r) => r.deliveries));
