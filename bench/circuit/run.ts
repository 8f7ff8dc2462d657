// What an endpoint's circuit breaker saves and what it costs, on one endpoint with a backlog during a
// simulated outage (an injected clock: the hour passes in seconds). For the breaker on and off:
// requests sent to the dead receiver, delivery rows written (each attempt writes its row twice, at
// the claim and at the outcome; the breaker moves held rows when it opens, when a probe comes near
// the hold horizon, and when it closes, counted from the statement's own RETURNING), and how long
// after the receiver recovers the last delivery lands.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench node --conditions=@surety/source --import tsx bench/circuit/run.ts [--quick]
// (PGlite without DATABASE_URL.) Loopback only; bounded: at most --hours × 720 + 2,880 steps.
import { createTestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { emitResult } from '../lib/result.js';
import { args } from '../lib/stats.js';

const a = args();
const N = a.num('deliveries', a.quick ? 500 : 2000);
const OUTAGE_MS = a.num('hours', 1) * 3_600_000;
const STEP_MS = 5000;

async function scenario(breaker: boolean) {
  const db = await createTestDatabase();
  let clock = Date.parse('2026-06-01T00:00:00Z');
  const webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  await webhooks.migrate();
  let up = false;
  const rx = await startReceiver((_r, _n, res) => void res.writeHead(up ? 204 : 500).end());
  const tenant = 'bench';
  await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
  for (let i = 0; i < N; i += 100) {
    await db.sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(N, i + 100); j++)
        await webhooks.publish(tx, { tenant, type: 'order.created', data: { j } });
    });
  }
  const worker = new DeliveryWorker({
    webhooks,
    listen: false,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    ...(breaker ? {} : { circuitThreshold: Number.MAX_SAFE_INTEGER }),
  });
  let attempts = 0;
  let moved = 0;
  worker.on('attempt:finished', () => attempts++);
  worker.on('circuit:opened', (e) => (moved += e.held));
  worker.on('circuit:probe_failed', (e) => (moved += e.held));
  worker.on('circuit:closed', (e) => (moved += e.released));
  const start = clock;
  const wall = performance.now();
  while (clock - start < OUTAGE_MS) {
    await worker.drain();
    clock += STEP_MS;
  }
  const outage = { requests: rx.received.length, rows: 2 * attempts + moved };
  up = true;
  const recoveredAt = clock;
  const delivered = async () =>
    Number(
      (
        await db.sql.query<{ n: string }>(
          `select count(*)::text as n from "${db.schema}".webhook_deliveries where status = 'delivered'`,
        )
      ).rows[0]!.n,
    );
  for (let i = 0; i < 2880 && (await delivered()) < N; i++) {
    await worker.drain();
    if ((await delivered()) >= N) break;
    clock += STEP_MS;
  }
  const result = {
    ...outage,
    allDelivered: (await delivered()) === N,
    recoverySeconds: (clock - recoveredAt) / 1000,
    rowsAfter: 2 * attempts + moved,
    wallSeconds: (performance.now() - wall) / 1000,
  };
  await rx.close();
  await db.close();
  return result;
}

const on = await scenario(true);
const off = await scenario(false);
const hours = OUTAGE_MS / 3_600_000;
const lines = [
  `${N} deliveries to one endpoint whose receiver answers 500 for ${hours} h (clock stepped every 5 s), then 204:`,
  '',
  '| breaker | requests during the outage | delivery rows written during it | last delivery after recovery | rows written in all |',
  '| ------- | -------------------------: | ------------------------------: | ---------------------------: | ------------------: |',
  ...[
    ['on', on],
    ['off', off],
  ].map(
    ([name, r]) =>
      `| ${name} | ${(r as typeof on).requests} | ${(r as typeof on).rows} | ${(r as typeof on).recoverySeconds} s | ${(r as typeof on).rowsAfter} |`,
  ),
];
console.log(lines.join('\n'));
if (!on.allDelivered || !off.allDelivered) throw new Error('not everything was delivered');
emitResult({
  bench: 'circuit',
  metrics: [
    { name: 'breaker.requests', value: on.requests, unit: 'requests' },
    { name: 'breaker.rows', value: on.rows, unit: 'rows' },
    { name: 'nobreaker.requests', value: off.requests, unit: 'requests' },
    { name: 'nobreaker.rows', value: off.rows, unit: 'rows' },
  ],
  ratios: [],
});
