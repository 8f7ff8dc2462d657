// Pull delivery (issue 36): events per second a poll endpoint's consumer reads and acknowledges,
// through the engine (readPoll + ackPoll) and through the HTTP API (GET …/poll + POST …/poll/ack,
// the service in this process on loopback), beside a bare keyset loop over the same tables in the
// same run: `select … from webhook_deliveries join webhook_events where id > $last order by id
// limit n` with the envelope built the same way, no position, no cursor, no acknowledgement (the
// read's floor, not a safe consumer: it skips a delivery that commits late). Pages of --page events.
// CPU per event from /proc by process group (lib/cpu.ts): this process and PostgreSQL.
//   DATABASE_URL=postgres://… node --conditions=@surety/source --import tsx bench/pull/run.ts [--n 5000] [--runs 3] [--page 100]
import { createPgSql } from '@surety/db';
import { createRegistry } from '@surety/events';
import { envelopeJson, parseAllowList, Webhooks } from '@surety/webhooks';
import { buildApp, eventValidator } from '../../apps/server/src/app.js';
import { parseApiKeys } from '../../apps/server/src/config.js';
import { runMigrations } from '../../apps/server/src/database.js';
import { cpuDelta, cpuSnapshot, postgresServer, usPerOperation } from '../lib/cpu.js';
import { median, round } from '../lib/stats.js';

const argv = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : d;
};
const N = opt('n', 5000);
const RUNS = opt('runs', 3);
const PAGE = opt('page', 100);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL: the pull benchmark reads PostgreSQL');

const SCHEMA = 'bench_pull';
const KEY = 'sk_bench_pull_0123456789abcdef';
const sql = createPgSql({ connectionString: url, max: 8 });
await sql.query(`drop schema if exists ${SCHEMA} cascade`);
await runMigrations(sql, SCHEMA);
const webhooks = new Webhooks({
  sql,
  schema: SCHEMA,
  allowList: parseAllowList('127.0.0.1/32'),
  validate: eventValidator(createRegistry()),
});
const app = await buildApp({
  webhooks,
  sql,
  config: {
    apiKeys: parseApiKeys(`bench:${KEY}`),
    bodyLimit: 65_536,
    idempotencyTtlMs: 86_400_000,
    schema: SCHEMA,
  },
});
const base = await app.listen({ host: '127.0.0.1', port: 0 });
const headers = { authorization: `Bearer ${KEY}` };
const sample = createRegistry().get('payment.created')!.sample;

const pg = await postgresServer(url);
const classify = (cmdline: string, pid: number, ppid: number) =>
  pid === process.pid ? 'node' : pg(cmdline, pid, ppid);

async function measure(fn: () => Promise<number>) {
  const before = cpuSnapshot(classify);
  const t = performance.now();
  const read = await fn();
  const seconds = (performance.now() - t) / 1000;
  if (read !== N) throw new Error(`read ${read} events, expected ${N}`);
  return { perSecond: N / seconds, cpu: usPerOperation(cpuDelta(before, cpuSnapshot(classify)), N) ?? {} };
}

const D = `${SCHEMA}.webhook_deliveries`;
const EV = `${SCHEMA}.webhook_events`;
const modes = {
  /** The floor: a keyset select of the same rows, envelopes built, nothing written. */
  async bare(tenant: string, id: string) {
    let last = '';
    let read = 0;
    for (;;) {
      const { rows } = await sql.query<{
        id: string;
        event_id: string;
        type: string;
        api_version: string;
        created_at: Date;
        sequence: string;
        data: string;
      }>(
        `select d.id, d.event_id, e.type, e.api_version, e.created_at, e.sequence::text as sequence, e.data
           from ${D} d join ${EV} e on e.tenant = d.tenant and e.id = d.event_id and e.created_at = d.event_created_at
          where d.tenant = $1 and d.endpoint_id = $2 and d.id > $3
          order by d.id limit $4`,
        [tenant, id, last, PAGE],
      );
      if (rows.length === 0) return read;
      for (const r of rows)
        envelopeJson({
          id: r.event_id,
          type: r.type,
          apiVersion: r.api_version,
          createdAt: r.created_at,
          sequence: r.sequence,
          data: r.data,
        });
      read += rows.length;
      last = rows[rows.length - 1]!.id;
    }
  },
  /** The engine: readPoll (positions given, under the cursor's lock) and ackPoll per page. */
  async engine(tenant: string, id: string) {
    let read = 0;
    for (;;) {
      const page = await webhooks.readPoll(sql, { tenant, id, limit: PAGE });
      if (page.data.length === 0) return read;
      read += page.data.length;
      await sql.transaction((tx) => webhooks.ackPoll(tx, { tenant, id, cursor: page.cursor }));
    }
  },
  /** The API: GET …/poll and POST …/poll/ack over HTTP on loopback (keep-alive). */
  async http(_tenant: string, id: string) {
    let read = 0;
    for (;;) {
      const res = await fetch(`${base}/v1/webhook-endpoints/${id}/poll?limit=${PAGE}`, { headers });
      const page = (await res.json()) as { data: unknown[]; cursor: string };
      if (res.status !== 200) throw new Error(`GET poll: ${res.status} ${JSON.stringify(page)}`);
      if (page.data.length === 0) return read;
      read += page.data.length;
      const ack = await fetch(`${base}/v1/webhook-endpoints/${id}/poll/ack`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ cursor: page.cursor }),
      });
      if (ack.status !== 200) throw new Error(`POST ack: ${ack.status} ${await ack.text()}`);
      await ack.arrayBuffer();
    }
  },
};
type Mode = keyof typeof modes;

const results: Record<Mode, { perSecond: number; cpu: Record<string, number> }[]> = {
  bare: [],
  engine: [],
  http: [],
};
for (let run = 0; run < RUNS; run++) {
  // One tenant per run (the API key's: `bench`), one poll endpoint per mode; every event fans out
  // to the three, so each mode reads the same N events of its own endpoint (not timed).
  const tenant = 'bench';
  const ids = {} as Record<Mode, string>;
  for (const mode of Object.keys(modes) as Mode[])
    ids[mode] = (await webhooks.createEndpoint(sql, { tenant, kind: 'poll', eventTypes: ['*'] })).endpoint.id;
  for (let i = 0; i < N; i += 500)
    await sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(N, i + 500); j++)
        await webhooks.publish(tx, { tenant, type: 'payment.created', data: sample });
    });
  // Both tables: with the events' statistics stale, the bare loop's plan drove from the events and
  // joined every one of the tenant's on each page (measured: 25 ms a page at 2,000 events).
  await sql.query(`vacuum analyze ${SCHEMA}.webhook_deliveries`);
  await sql.query(`vacuum analyze ${SCHEMA}.webhook_events`);
  // Order rotated by run, so no mode always reads a cold or a warm cache.
  const order = (Object.keys(modes) as Mode[]).map((_, k, a) => a[(k + run) % a.length]!);
  if (argv.includes('--explain')) {
    const plan = await sql.query<{ 'QUERY PLAN': string }>(
      `explain (analyze, buffers) select d.id, d.event_id, e.type, e.api_version, e.created_at, e.sequence::text as sequence, e.data
         from ${D} d join ${EV} e on e.tenant = d.tenant and e.id = d.event_id and e.created_at = d.event_created_at
        where d.tenant = $1 and d.endpoint_id = $2 and d.id > $3 order by d.id limit $4`,
      [tenant, ids.bare, '', PAGE],
    );
    console.error(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
  }
  for (const mode of order) results[mode].push(await measure(() => modes[mode](tenant, ids[mode])));
  for (const id of Object.values(ids))
    await sql.transaction((tx) => webhooks.deleteEndpoint(tx, { tenant, id }));
}

const med = (mode: Mode) => ({
  perSecond: median(results[mode].map((r) => r.perSecond)),
  node: median(results[mode].map((r) => r.cpu.node ?? 0)),
  pg: median(results[mode].map((r) => r.cpu.postgres ?? 0)),
});
const bare = med('bare');
console.log(`${N} events per run, pages of ${PAGE}, median of ${RUNS} runs; CPU in µs per event.\n`);
console.log('| reader | events/s | ÷ bare | node CPU µs | PostgreSQL CPU µs |');
console.log('|---|---|---|---|---|');
for (const mode of ['bare', 'engine', 'http'] as Mode[]) {
  const m = med(mode);
  console.log(
    `| ${mode} | ${Math.round(m.perSecond).toLocaleString('en')} | ${round(m.perSecond / bare.perSecond, 2)} | ${Math.round(m.node)} | ${Math.round(m.pg)} |`,
  );
}
await app.close();
await sql.query(`drop schema ${SCHEMA} cascade`);
await sql.close();
