// Benchmark: POST /v1/payments on real PostgreSQL, with and without the idempotency layer, and the
// npm peer (express-idempotency on Redis) with and without its middleware: each side compared with
// its own baseline, all four in the same run, same concurrency, in alternating order round by round.
// Prints a markdown table, then `RESULT {json}` for bench/run.ts.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/idempotency/run.ts [--quick] [--rounds n]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuDelta, cpuSnapshot, postgresServer, usPerOperation } from '../lib/cpu.js';
import { profileArgs } from '../lib/profile.js';
import { emitResult } from '../lib/result.js';
import { adminQuery, args, median, requireDatabaseUrl } from '../lib/stats.js';
import { TETHER_ARGS } from '../lib/tether.js';

const a = args();
const rounds = a.num('rounds', 1);
const duration = a.num('seconds', a.quick ? 3 : 8);
const connections = Number(process.env.CONNECTIONS ?? 16);
const url = requireDatabaseUrl('the benchmark creates and drops schemas bench_idem and bench_idem_express');
// This server's processes only, not another cluster's on the host (bench/lib/cpu.ts).
const postgres = await postgresServer(url);

type Name = 'surety-off' | 'surety-on' | 'express-off' | 'express-on';
interface Sample {
  name: Name;
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  /** CPU µs per request by process group (server, postgres, load generator), when /proc exists. */
  cpu?: Record<string, number>;
}

const servers: Record<Name, { file: string; env: Record<string, string> }> = {
  'surety-off': { file: 'server.ts', env: { IDEMPOTENCY: 'off' } },
  'surety-on': { file: 'server.ts', env: { IDEMPOTENCY: 'on' } },
  'express-off': { file: 'express-server.ts', env: { IDEMPOTENCY: 'off' } },
  'express-on': { file: 'express-server.ts', env: { IDEMPOTENCY: 'on' } },
};

async function round(name: Name): Promise<Sample> {
  const { file, env } = servers[name];
  const child = spawn(
    process.execPath,
    [
      ...TETHER_ARGS,
      ...profileArgs(`server-${name}`),
      '--import',
      'tsx',
      fileURLToPath(new URL(file, import.meta.url)),
    ],
    {
      env: { ...process.env, ...env, LOG_LEVEL: 'silent' },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`${name} server exited ${code}`)));
  });
  const options = {
    url: base,
    connections,
    requests: [
      {
        method: 'POST' as const,
        path: '/v1/payments',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk_bench_0123456789abcdef' },
        body: JSON.stringify({ amount: '1999', currency: 'USD', customerId: 'cus_bench' }),
        // Baselines send no key: Surety's baseline route runs the same transaction (payment + outbox
        // event) and only claims and records a key when one is sent. They send a header of the same
        // size made the same way instead (X-Request-Id, which no server here reads), so the load
        // generator, which shares the cores with the server and PostgreSQL, does the same work for
        // both sides of a ratio (autocannon rebuilds every request it is asked to set up: ~60 µs).
        setupRequest: (req: autocannon.Request) => {
          const header = name.endsWith('-on') ? 'idempotency-key' : 'x-request-id';
          req.headers = { ...req.headers, [header]: randomUUID() };
          return req;
        },
      },
    ],
  };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, pool, prepared statements
  const groups = (cmdline: string, pid: number, ppid: number) =>
    pid === child.pid ? 'server' : pid === process.pid ? 'autocannon' : postgres(cmdline, pid, ppid);
  // The tables are seconds old and have never been analysed (autovacuum's first ANALYZE comes up to
  // a minute later); a service in production has statistics. Without them the key claim's cached
  // plan, built on an empty table, is a sequential scan, kept while the table grows (300 µs per
  // claim after a few seconds, growing), and the round measures that rather than the layer. ANALYZE
  // invalidates the cached plans, so the next executions plan with real statistics; both sides get
  // it (docs/decisions.md).
  await adminQuery(
    url,
    `do $$ declare t record; begin
       for t in select schemaname, tablename from pg_tables where schemaname in ('bench_idem', 'bench_idem_express') loop
         execute format('analyze %I.%I', t.schemaname, t.tablename);
       end loop;
     end $$`,
  );
  const before = cpuSnapshot(groups);
  const r = await autocannon({ ...options, duration });
  const cpu = usPerOperation(cpuDelta(before, cpuSnapshot(groups)), r.requests.total);
  child.kill('SIGTERM');
  await new Promise((res) => child.once('exit', res));
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bad: r.errors + r.non2xx,
    cpu,
  };
}

await adminQuery(
  url,
  'drop schema if exists bench_idem cascade; drop schema if exists bench_idem_express cascade',
);
const load = loadavg()[0]!;
const order: Name[] = ['surety-off', 'surety-on', 'express-off', 'express-on'];
const samples: Sample[] = [];
for (let i = 0; i < rounds; i++) {
  // Alternate the order round by round (and run by run: BENCH_RUN from bench/run.ts) so drift hits all.
  const reverse = (i + Number(process.env.BENCH_RUN ?? 0)) % 2 === 1;
  for (const name of reverse ? [...order].reverse() : order) {
    const s = await round(name);
    samples.push(s);
    console.error(
      `round ${i + 1} ${name}: ${s.rps.toFixed(0)} req/s, p50 ${s.p50} ms, p99 ${s.p99} ms, errors/non-2xx ${s.bad}`,
    );
  }
}
await adminQuery(
  url,
  'drop schema if exists bench_idem cascade; drop schema if exists bench_idem_express cascade',
);

const of = (name: Name, k: 'rps' | 'p50' | 'p99') =>
  median(samples.filter((s) => s.name === name).map((s) => s[k]));
const bad = samples.reduce((n, s) => n + s.bad, 0);
const suretyRatio = of('surety-on', 'rps') / of('surety-off', 'rps');
const expressRatio = of('express-on', 'rps') / of('express-off', 'rps');
const label: Record<Name, string> = {
  'surety-off': 'Surety service (Fastify), no idempotency (baseline)',
  'surety-on': 'Surety service, idempotency on (PostgreSQL, same transaction)',
  'express-off': 'Express 5, no middleware (peer baseline)',
  'express-on': 'Express 5 + express-idempotency 1.0.6 (Redis store)',
};
const cpuOf = (name: Name, group: string) => {
  const v = samples.filter((s) => s.name === name && s.cpu).map((s) => s.cpu![group] ?? 0);
  return v.length ? median(v).toFixed(0) : '–';
};
console.log(`| configuration | req/s | p50 ms | p99 ms | CPU µs/request: server | PostgreSQL | autocannon |`);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const name of order)
  console.log(
    `| ${label[name]} | ${of(name, 'rps').toFixed(0)} | ${of(name, 'p50')} | ${of(name, 'p99')} | ${cpuOf(name, 'server')} | ${name.startsWith('express') ? `${cpuOf(name, 'postgres')} (Redis not counted)` : cpuOf(name, 'postgres')} | ${cpuOf(name, 'autocannon')} |`,
  );
console.log(
  `\nSurety with ÷ without: **${suretyRatio.toFixed(2)}** (added p50 ${(of('surety-on', 'p50') - of('surety-off', 'p50')).toFixed(1)} ms, p99 ${(of('surety-on', 'p99') - of('surety-off', 'p99')).toFixed(1)} ms); ` +
    `express-idempotency with ÷ without: **${expressRatio.toFixed(2)}**; ${connections} connections, ${duration} s per round, ${rounds} round(s); errors/non-2xx: ${bad}; load average ${load.toFixed(1)}`,
);

const metrics = order.flatMap((name) => [
  { name: `${name}.rps`, value: of(name, 'rps'), unit: 'req/s' },
  { name: `${name}.p50`, value: of(name, 'p50'), unit: 'ms' },
  { name: `${name}.p99`, value: of(name, 'p99'), unit: 'ms' },
  // CPU µs per request by process (median over the rounds): the measured reason beside the ratio.
  ...['server', 'postgres', 'autocannon']
    .filter((group) => cpuOf(name, group) !== '–')
    .map((group) => ({ name: `cpu.${name}.${group}`, value: Number(cpuOf(name, group)), unit: 'µs' })),
]);
emitResult({
  bench: 'idempotency',
  metrics: [
    ...metrics,
    { name: 'surety.added_p50', value: of('surety-on', 'p50') - of('surety-off', 'p50'), unit: 'ms' },
    { name: 'surety.added_p99', value: of('surety-on', 'p99') - of('surety-off', 'p99'), unit: 'ms' },
    { name: 'errors', value: bad, unit: 'requests' },
  ],
  ratios: [
    {
      name: 'idempotency.surety',
      value: suretyRatio,
      target: 0.8,
      op: '>=',
      what: 'Surety POST req/s with ÷ without idempotency',
    },
    { name: 'idempotency.express', value: expressRatio, what: 'express-idempotency (Redis) with ÷ without' },
    {
      name: 'idempotency.vs_peer',
      value: suretyRatio / expressRatio,
      target: 1,
      op: '>=',
      what: "Surety's ratio ÷ express-idempotency's ratio",
    },
  ],
  checks: { 'no errors or non-2xx': bad === 0 },
});
