// Schema-stall benchmark (issue 30, N1), side by side in one run on one service process:
//   baseline  a victim tenant reads GET /v1/applications back to back, alone
//   cheap     the same while a hostile tenant publishes 60 KB payloads ({a: [0 × 30,000]}) against a
//             plain schema (items: {type: integer}) from 2 connections, back to back
//   costly    the same against the hostile tenant's costliest schema the cost bound accepts (an
//             `anyOf` of const branches before the integer one, as many as the bound lets through:
//             every item tries every branch)
// The victim's p50/p99 in each; the target: costly p99 ÷ baseline p99 ≤ 1.5. Before issue 30 the
// payload was validated on the event loop (17.5 s for the 1,500-branch fixture, every tenant held).
// Prints markdown, then `RESULT {json}`. Loopback only; bounded in count and time.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench node --import tsx bench/schema-stall/run.ts [--quick]
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { costIssues } from '../../apps/server/src/event-types/schema-cost.js';
import { emitResult } from '../lib/result.js';
import { adminQuery, args, percentile, requireDatabaseUrl, round } from '../lib/stats.js';

const a = args();
const SECONDS = a.num('seconds', a.quick ? 3 : 8);
const SCHEMA = 'bench_schema_stall';
const url = requireDatabaseUrl('the benchmark creates and drops schema bench_schema_stall');
const VICTIM = 'Bearer sk_bench_victim_0123456789';
const HOSTILE = 'Bearer sk_bench_hostile_0123456789';
const MAX_VALUES = 65_536 / 2;

const itemsSchema = (items: unknown) => ({
  type: 'object',
  properties: { a: { type: 'array', items } },
});
/** The largest anyOf (k consts, then integer) the cost bound accepts. */
function costliest() {
  let lo = 1;
  let hi = 400;
  const schemaOf = (k: number) =>
    itemsSchema({
      anyOf: [...Array.from({ length: k }, (_, i) => ({ const: `s${i}` })), { type: 'integer' }],
    });
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (costIssues(schemaOf(mid), MAX_VALUES, '/schema').length === 0) lo = mid;
    else hi = mid - 1;
  }
  return { k: lo, schema: schemaOf(lo) };
}

async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  await adminQuery(url, `drop schema if exists ${SCHEMA} cascade`);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('server.ts', import.meta.url))],
    {
      env: { ...process.env, BENCH_SCHEMA: SCHEMA, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, base };
}

async function call(base: string, auth: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const r = await request(`${base}${path}`, {
    method,
    headers: {
      authorization: auth,
      ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.body.text();
  return { status: r.statusCode, text };
}

const payload = { a: Array.from({ length: 30_000 }, () => 0) };

/** The victim's read latencies over SECONDS, while `hostileType` (if any) is published from 2 loops. */
async function phase(base: string, hostileType: string | undefined) {
  const deadline = performance.now() + SECONDS * 1000;
  const latencies: number[] = [];
  let published = 0;
  let hostile5xx = 0;
  let victimBad = 0;
  const hostileLoop = async () => {
    while (hostileType && performance.now() < deadline) {
      const r = await call(base, HOSTILE, 'POST', '/v1/events', { type: hostileType, data: payload });
      if (r.status === 201) published++;
      else if (r.status >= 500) hostile5xx++;
    }
  };
  const victimLoop = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      const r = await call(base, VICTIM, 'GET', '/v1/applications');
      latencies.push(performance.now() - started);
      if (r.status !== 200) victimBad++;
    }
  };
  await Promise.all([victimLoop(), hostileLoop(), hostileLoop()]);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
    reads: latencies.length,
    published,
    hostile5xx,
    victimBad,
  };
}

const { child, base } = await startServer();
try {
  const { k, schema } = costliest();
  for (const [name, s] of [
    ['hostile.cheap', itemsSchema({ type: 'integer' })],
    ['hostile.costly', schema],
  ] as const) {
    const r = await call(base, HOSTILE, 'POST', '/v1/event-types', {
      name,
      description: 'bench',
      schema: s,
      examples: [{ a: [0] }],
      compatibility: 'none',
    });
    if (r.status !== 201) throw new Error(`${name}: ${r.status} ${r.text}`);
  }
  // Warm-up: JIT, pool, the workers' compiled validators.
  await call(base, HOSTILE, 'POST', '/v1/events', { type: 'hostile.costly', data: payload });
  await call(base, HOSTILE, 'POST', '/v1/events', { type: 'hostile.cheap', data: payload });
  await phase(base, undefined);
  const baseline = await phase(base, undefined);
  const cheap = await phase(base, 'hostile.cheap');
  const costly = await phase(base, 'hostile.costly');
  const rows = [
    ['baseline (victim alone)', baseline],
    ['cheap schema (items: integer)', cheap],
    [`costliest accepted schema (anyOf of ${k + 1})`, costly],
  ] as const;
  console.log(`## Schema stall: another tenant's reads while a tenant publishes 60 KB payloads\n`);
  console.log(
    '| phase | victim p50 ms | victim p99 ms | victim max ms | reads | hostile publishes | hostile 5xx |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [label, r] of rows) {
    console.log(
      `| ${label} | ${round(r.p50)} | ${round(r.p99)} | ${round(r.max)} | ${r.reads} | ${r.published} | ${r.hostile5xx} |`,
    );
  }
  const ratio = costly.p99 / baseline.p99;
  console.log(
    `\ncostly p99 ÷ baseline p99: ${round(ratio)} (target ≤ 1.5); costly ÷ cheap: ${round(costly.p99 / cheap.p99)}`,
  );
  emitResult({
    bench: 'schema-stall',
    metrics: [
      { name: 'baseline.p99', value: round(baseline.p99), unit: 'ms' },
      { name: 'cheap.p99', value: round(cheap.p99), unit: 'ms' },
      { name: 'costly.p99', value: round(costly.p99), unit: 'ms' },
      { name: 'costly.publishes', value: costly.published, unit: 'count' },
    ],
    ratios: [
      {
        name: 'schema_stall.costly_vs_baseline_p99',
        value: round(ratio),
        target: 1.5,
        op: '<=',
        what: "victim's p99 with ÷ without the hostile tenant's costliest publishes",
      },
      {
        name: 'schema_stall.costly_vs_cheap_p99',
        value: round(costly.p99 / cheap.p99),
        what: "victim's p99: costliest ÷ plain schema, same payloads",
      },
    ],
    checks: {
      'no 5xx': rows.every(([, r]) => r.hostile5xx === 0 && r.victimBad === 0),
      'no read over 1 s': rows.every(([, r]) => r.max < 1000),
    },
  });
} finally {
  child.kill('SIGTERM');
}
