// The benchmarks' webhook receiver (bench/delivery/receiver.ts) in its own process, and the few
// things a benchmark asks of it. `delayMs`: how long each answer takes (0: at once).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TETHER_ARGS } from './tether.js';

export interface BenchReceiver {
  port: number;
  /** The receiver's process, for CPU per request (bench/lib/cpu.ts). */
  pid: number;
  /** Requests received since the last reset. */
  count(): Promise<number>;
  /** Publish→arrival latencies (ms) since the last reset. */
  latencies(): Promise<number[]>;
  reset(): Promise<void>;
  /** Resolves once `n` requests arrived; throws after `timeoutMs`. Polls every 20 ms. */
  waitFor(n: number, timeoutMs: number): Promise<void>;
  close(): void;
}

export async function startReceiver(delayMs = 0): Promise<BenchReceiver> {
  const child = fork(fileURLToPath(new URL('../delivery/receiver.ts', import.meta.url)), {
    execArgv: [...TETHER_ARGS, '--import', 'tsx'],
    env: { ...process.env, RECEIVER_DELAY_MS: String(delayMs) },
  });
  const ask = <T>(cmd: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      child.send({ cmd });
    });
  const { port } = await new Promise<{ port: number }>((r) =>
    child.once('message', (m) => r(m as { port: number })),
  );
  const count = async () => (await ask<{ count: number }>('count')).count;
  return {
    port,
    pid: child.pid!,
    count,
    latencies: async () => (await ask<{ latencies: number[] }>('stats')).latencies,
    reset: async () => {
      await ask('reset');
    },
    async waitFor(n, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const got = await count();
        if (got >= n) return;
        if (Date.now() > deadline) throw new Error(`only ${got} of ${n} arrived`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => child.send({ cmd: 'exit' }),
  };
}
