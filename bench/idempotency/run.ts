// Benchmark: POST /v1/payments on real PostgreSQL, with and without the idempotency layer, same
// run, same concurrency, alternating rounds. Prints a markdown table of medians and the ratio.
// Both sides run the same handler in one transaction: the payment insert and its outbox event
// (payment.created). "With" adds the key claim and the stored response.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench npx tsx bench/idempotency/run.ts [--quick]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

const quick = process.argv.includes('--quick');
const rounds = quick ? 1 : 3;
const duration = quick ? 4 : 10;
const connections = Number(process.env.CONNECTIONS ?? 16);
const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    'set DATABASE_URL to a PostgreSQL database (the benchmark creates and drops schema bench_idem)',
  );
  process.exit(2);
}

async function resetSchema() {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('drop schema if exists bench_idem cascade');
  await client.end();
}

interface Result {
  mode: 'on' | 'off';
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function round(mode: 'on' | 'off'): Promise<Result> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('server.ts', import.meta.url))],
    {
      env: { ...process.env, IDEMPOTENCY: mode, LOG_LEVEL: 'silent' },
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
  const options = {
    url: base,
    connections,
    requests: [
      {
        method: 'POST' as const,
        path: '/v1/payments',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk_bench_0123456789abcdef' },
        body: JSON.stringify({ amount: '1999', currency: 'USD', customerId: 'cus_bench' }),
        // the baseline sends no key: the same route runs its transaction without claiming one
        ...(mode === 'on'
          ? {
              setupRequest: (req: autocannon.Request) => {
                req.headers = { ...req.headers, 'idempotency-key': randomUUID() };
                return req;
              },
            }
          : {}),
      },
    ],
  };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, pool, prepared statements
  const r = await autocannon({ ...options, duration });
  child.kill('SIGTERM');
  await new Promise((res) => child.once('exit', res));
  return {
    mode,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

await resetSchema();
const results: Result[] = [];
for (let i = 0; i < rounds; i++) {
  for (const mode of i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
    const r = await round(mode);
    results.push(r);
    console.error(
      `round ${i + 1} ${mode}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, errors ${r.errors}, non-2xx ${r.non2xx}`,
    );
  }
}
await resetSchema();
const of = (mode: 'on' | 'off', k: 'rps' | 'p50' | 'p99') =>
  median(results.filter((r) => r.mode === mode).map((r) => r[k]));
const bad = results.reduce((s, r) => s + r.errors + r.non2xx, 0);
console.log(`| configuration | req/s (median of ${rounds}) | p50 ms | p99 ms |`);
console.log('|---|---|---|---|');
console.log(
  `| without idempotency (baseline) | ${of('off', 'rps').toFixed(0)} | ${of('off', 'p50')} | ${of('off', 'p99')} |`,
);
console.log(`| with idempotency | ${of('on', 'rps').toFixed(0)} | ${of('on', 'p50')} | ${of('on', 'p99')} |`);
console.log(
  `\nratio (with ÷ without): **${(of('on', 'rps') / of('off', 'rps')).toFixed(2)}**; added latency p50 ${(of('on', 'p50') - of('off', 'p50')).toFixed(1)} ms, p99 ${(of('on', 'p99') - of('off', 'p99')).toFixed(1)} ms; ${connections} connections, ${duration} s per round; errors/non-2xx: ${bad}`,
);
