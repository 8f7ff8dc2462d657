// Delivery workers for the benchmarks are the product's own `surety worker` processes (what an
// operator runs), not a copy of its setup. Resolves once the worker has logged that it started.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { profileArgs } from './profile.js';
import { TETHER_ARGS } from './tether.js';

const cli = fileURLToPath(new URL('../../apps/server/bin/surety.js', import.meta.url));

/**
 * `env` adds settings; the throughput benchmarks (one tenant, one endpoint) open the fairness caps
 * up with `OPEN_CAPS`, as a single-tenant deployment would; bench/fairness runs the defaults.
 */
export function spawnSuretyWorker(schema: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...TETHER_ARGS, ...profileArgs('worker'), cli, 'worker'], {
    env: {
      ...process.env,
      ...env,
      SURETY_SCHEMA: schema,
      SURETY_API_KEYS: 'bench:sk_bench_0123456789abcdef',
      SURETY_WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      SURETY_WEBHOOK_ALLOW_HTTP: 'true',
      LOG_LEVEL: 'info',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('delivery worker started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`surety worker exited ${code}`)));
  });
}

/** Caps on attempts in flight as high as the worker's slots: one tenant's throughput, unthrottled. */
export const OPEN_CAPS = {
  SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '100000',
  SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_TENANT: '100000',
};
