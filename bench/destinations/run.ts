// Broker destinations (issue 36): deliveries per second and CPU per delivery through Surety's worker
// to RabbitMQ, NATS JetStream and Mosquitto, each beside that client's own bare publish loop (same
// body, same number in flight, the same confirmation awaited), in the same run. CPU is read from
// /proc by process group (lib/cpu.ts): this process (the worker or the bare loop), the broker, and
// PostgreSQL (the worker's claims and records; the bare loop has none).
//   DATABASE_URL=postgres://… node --import tsx bench/destinations/run.ts [--n 3000] [--runs 3]
import { randomBytes } from 'node:crypto';
import { createPgSql } from '@surety/db';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import amqplib from 'amqplib';
import mqtt from 'mqtt';
import { connect as natsConnect, headers as natsHeaders } from 'nats';
import { cpuDelta, cpuSnapshot, postgresServer, usPerOperation } from '../lib/cpu.js';
import { median, round } from '../lib/stats.js';

const argv = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : d;
};
const N = opt('n', 3000);
const RUNS = opt('runs', 3);
const IN_FLIGHT = 64;
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL: the worker needs PostgreSQL');

const body = JSON.stringify({
  id: 'evt_x',
  type: 'order.shipped',
  data: { pad: randomBytes(150).toString('hex') },
});
const pg = await postgresServer(url);
const classify = (cmdline: string, pid: number, ppid: number) => {
  if (pid === process.pid) return 'node';
  if (/beam\.smp/.test(cmdline) && /rabbit/.test(cmdline)) return 'broker';
  if (/nats-server/.test(cmdline) || /^mosquitto|\/mosquitto /.test(cmdline)) return 'broker';
  return pg(cmdline, pid, ppid);
};

/** Runs `total` sends, `IN_FLIGHT` at a time. */
async function loop(total: number, send: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < total) await send(next++);
    }),
  );
}

async function measure(fn: () => Promise<void>) {
  const before = cpuSnapshot(classify);
  const t = performance.now();
  await fn();
  const seconds = (performance.now() - t) / 1000;
  return { perSecond: N / seconds, cpu: usPerOperation(cpuDelta(before, cpuSnapshot(classify)), N) ?? {} };
}

const tag = `b${Date.now()}`;
const bare = {
  async amqp() {
    const c = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    const ch = await c.createConfirmChannel();
    await ch.assertExchange(tag, 'topic', { durable: false });
    const q = await ch.assertQueue(`${tag}.q`, { durable: false });
    await ch.bindQueue(q.queue, tag, '#');
    const r = await measure(() =>
      loop(
        N,
        (i) =>
          new Promise<void>((res, rej) =>
            ch.publish(
              tag,
              'order.shipped',
              Buffer.from(body),
              { messageId: `m${i}`, persistent: true, mandatory: true },
              (e: unknown) => (e ? rej(e) : res()),
            ),
          ),
      ),
    );
    await ch.purgeQueue(q.queue);
    await c.close();
    return r;
  },
  async nats() {
    const nc = await natsConnect({ servers: '127.0.0.1:4222' });
    const js = nc.jetstream();
    const run = `${tag}-${Date.now()}`; // ids unique across runs: no duplicate (cheaper) acks
    const r = await measure(() =>
      loop(N, (i) => {
        const h = natsHeaders();
        h.set('webhook-id', `m${i}`);
        return js.publish(`${tag}.order.shipped`, Buffer.from(body), { msgID: `${run}-${i}`, headers: h });
      }),
    );
    await nc.close();
    return r;
  },
  async mqtt() {
    const c = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { protocolVersion: 5 });
    const r = await measure(() =>
      loop(N, (i) =>
        c.publishAsync(`${tag}/order.shipped`, Buffer.from(body), {
          qos: 1,
          properties: { userProperties: { 'webhook-id': `m${i}` } },
        }),
      ),
    );
    await c.endAsync();
    return r;
  },
};

const sql = createPgSql({ connectionString: url, max: 16 });
const webhooks = new Webhooks({
  sql,
  schema: 'bench_destinations',
  allowHttp: true,
  allowList: parseAllowList('127.0.0.1/32'),
});
await webhooks.migrate();
const nc = await natsConnect({ servers: '127.0.0.1:4222' });
const jsm = await nc.jetstreamManager();
await jsm.streams.add({ name: tag, subjects: [`${tag}.>`], max_msgs: 1_000_000 });
const amqpSetup = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
const amqpCh = await amqpSetup.createChannel();
await amqpCh.assertExchange(`${tag}.s`, 'topic', { durable: false });
const sq = await amqpCh.assertQueue(`${tag}.sq`, { durable: false });
await amqpCh.bindQueue(sq.queue, `${tag}.s`, '#');

const endpoints = {
  amqp: { url: 'amqp://guest:guest@127.0.0.1:5672/', destination: { exchange: `${tag}.s` } },
  nats: { url: 'nats://127.0.0.1:4222', destination: { subject: `${tag}.{type}` } },
  mqtt: { url: 'mqtt://127.0.0.1:1883', destination: { topic: `${tag}/{type}` } },
};

async function surety(kind: keyof typeof endpoints, run: number) {
  const tenant = `${tag}-${kind}-${run}`;
  await webhooks.createEndpoint(sql, { tenant, kind, ...endpoints[kind], eventTypes: ['*'] });
  for (let i = 0; i < N; i += 500)
    await sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(N, i + 500); j++)
        await webhooks.publish(tx, { tenant, type: 'order.shipped', data: { pad: body.slice(60, 360) } });
    });
  // Running as in production (claims run ahead of the attempts), until every attempt finished and
  // the outcomes are written (stop flushes them).
  const w = new DeliveryWorker({
    webhooks,
    listen: false,
    concurrency: IN_FLIGHT,
    batchSize: 100,
    pollIntervalMs: 20,
    guard: { allowList: parseAllowList('127.0.0.1/32') },
  });
  let finished = 0;
  let all: () => void = () => {};
  const done = new Promise<void>((r) => {
    all = r;
  });
  w.on('attempt:finished', () => {
    if (++finished === N) all();
  });
  const r = await measure(async () => {
    await w.start();
    await done;
    await w.stop();
  });
  const { rows } = await sql.query<{ n: number }>(
    `select count(*)::int as n from bench_destinations.webhook_deliveries where tenant = $1 and status = 'delivered'`,
    [tenant],
  );
  if (rows[0]!.n !== N) throw new Error(`${kind}: ${rows[0]!.n} of ${N} delivered`);
  return r;
}

const lines: string[] = [];
for (const kind of ['amqp', 'nats', 'mqtt'] as const) {
  const b: Awaited<ReturnType<typeof bare.amqp>>[] = [];
  const s: typeof b = [];
  for (let run = 0; run < RUNS; run++) {
    b.push(await bare[kind]());
    s.push(await surety(kind, run));
    if (kind === 'amqp') await amqpCh.purgeQueue(sq.queue);
  }
  const m = (xs: typeof b, f: (x: (typeof b)[number]) => number) => median(xs.map(f));
  const total = (x: (typeof b)[number]) => Object.values(x.cpu).reduce((a, v) => a + v, 0);
  const row = {
    kind,
    bareRate: round(
      m(b, (x) => x.perSecond),
      0,
    ),
    suretyRate: round(
      m(s, (x) => x.perSecond),
      0,
    ),
    bareNodeUs: round(
      m(b, (x) => x.cpu.node ?? 0),
      1,
    ),
    suretyNodeUs: round(
      m(s, (x) => x.cpu.node ?? 0),
      1,
    ),
    bareTotalUs: round(m(b, total), 1),
    suretyTotalUs: round(m(s, total), 1),
    suretyPgUs: round(
      m(s, (x) => x.cpu.postgres ?? 0),
      1,
    ),
  };
  lines.push(
    `| ${kind} | ${row.suretyRate} | ${row.bareRate} | ${round(row.suretyRate / row.bareRate, 2)} | ${row.suretyNodeUs} | ${row.bareNodeUs} | ${round(row.suretyNodeUs / row.bareNodeUs, 2)} | ${row.suretyTotalUs} (PostgreSQL ${row.suretyPgUs}) | ${row.bareTotalUs} | ${round(row.suretyTotalUs / row.bareTotalUs, 2)} |`,
  );
  console.error(JSON.stringify({ ...row, runs: { bare: b, surety: s } }));
}
console.log(`${N} events per run, ${IN_FLIGHT} in flight, median of ${RUNS} runs; CPU in µs per delivery.\n`);
console.log(
  '| broker | Surety deliveries/s | bare publishes/s | ratio | Surety node CPU | bare node CPU | ratio | Surety all CPU | bare all CPU | ratio |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const l of lines) console.log(l);

await jsm.streams.delete(tag);
await nc.close();
await amqpCh.deleteQueue(sq.queue);
await amqpCh.deleteExchange(`${tag}.s`);
await amqpSetup.close();
await sql.query('drop schema bench_destinations cascade');
await sql.close();
