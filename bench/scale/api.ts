// bench/scale's API case: 1, 2 or 4 `surety serve` processes under autocannon, a key sent twice, and
// payments == stored keys after each run.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { adminQuery } from '../lib/stats.js';
import { TETHER_ARGS } from '../lib/tether.js';
import { API_KEY, CONNECTIONS, cli, count, duration, stop, url } from './setup.js';

function startApi(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [...TETHER_ARGS, cli, 'serve'], {
    env: {
      ...process.env,
      SURETY_WORKER: 'off',
      PORT: '0',
      DATABASE_URL: url,
      SURETY_SCHEMA: 'bench_scale_api',
      SURETY_API_KEYS: `bench:${API_KEY}`,
      LOG_LEVEL: 'info',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /Server listening at (http:\/\/[^"\s]+)/.exec(line);
      if (m) resolve({ child, base: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`surety serve exited ${code}`)));
  });
}

export async function api(processes: number) {
  await adminQuery(url, 'drop schema if exists bench_scale_api cascade');
  // The first process migrates; the others then find the schema up to date.
  const first = await startApi();
  const rest = await Promise.all(Array.from({ length: processes - 1 }, startApi));
  const all = [first, ...rest];
  let n = 0;
  const shoot = (base: string, seconds: number) =>
    autocannon({
      url: base,
      connections: Math.max(1, Math.floor(CONNECTIONS / processes)),
      duration: seconds,
      requests: [
        {
          method: 'POST',
          path: '/v1/payments',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
          body: JSON.stringify({ amount: '1999', currency: 'USD', customerId: 'cus_bench' }),
          setupRequest: (req: autocannon.Request) => {
            req.headers = { ...req.headers, 'idempotency-key': `scale-${processes}-${Math.floor(n++ / 2)}` };
            return req;
          },
        },
      ],
    });
  await Promise.all(all.map((p) => shoot(p.base, 2))); // warm-up
  const results = await Promise.all(all.map((p) => shoot(p.base, duration)));
  await Promise.all(all.map((p) => stop(p.child)));
  const ok = results.reduce((s, r) => s + r['2xx'], 0);
  const conflicts = results.reduce((s, r) => s + r.non2xx, 0);
  const errors = results.reduce((s, r) => s + r.errors, 0);
  const rps = results.reduce((s, r) => s + r.requests.average, 0);
  const payments = await count('select count(*)::text as n from bench_scale_api.payments');
  const keys = await count('select count(*)::text as n from bench_scale_api.idempotency_keys');
  // POST /v1/payments is phased (issue 32): the key is claimed first, then the `created` phase writes
  // the payment and the key's recovery point in one transaction. A request cut by the processes'
  // stop leaves a claimed key with no phase (a retry resumes it), so the exact check is payments ==
  // keys past their first phase, and no more payments than keys sent.
  const phased = await count(
    'select count(*)::text as n from bench_scale_api.idempotency_keys where recovery_point is not null',
  );
  await adminQuery(url, 'drop schema if exists bench_scale_api cascade');
  const check = payments === phased && payments <= Math.ceil(n / 2);
  console.error(
    `api ×${processes}: ${rps.toFixed(0)} req/s (2xx ${ok}, 409/other ${conflicts}, errors ${errors}); payments ${payments}, keys ${keys} (past their first phase ${phased}), distinct keys sent ${Math.ceil(n / 2)}`,
  );
  return { processes, rps, ok, conflicts, errors, payments, keys, phased, check };
}
