// Delivery workers for the benchmarks are the product's own `surety worker` processes (what an
// operator runs), not a copy of its setup. Resolves once the worker has logged that it started.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../apps/server/bin/surety.js', import.meta.url));

export function spawnSuretyWorker(schema: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [cli, 'worker'], {
    env: {
      ...process.env,
      SURETY_SCHEMA: schema,
      SURETY_API_KEYS: 'bench:sk_bench_0123456789abcdef',
      SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      SURETY_WEBHOOK_ALLOW_HTTP: 'true',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('delivery worker started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`surety worker exited ${code}`)));
  });
}
