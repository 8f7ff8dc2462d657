// Shared plumbing of the fault suite: scenario sizes (short in `npm test`, long with SURETY_CHAOS=1),
// a seeded random source, a TCP fault proxy and the figures each scenario reports to `npm run chaos`.
import { appendFileSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { createFetch } from '@surety/fetch';

/** True under `npm run chaos` (SURETY_CHAOS=1): the same scenarios at larger counts. */
export const CHAOS = process.env.SURETY_CHAOS === '1';

/** The short-form size, or the long-form one under SURETY_CHAOS=1. */
export const size = (short: number, long: number): number => (CHAOS ? long : short);

/**
 * A seeded random source (mulberry32), so a failing run can be repeated: the seed is printed and
 * SURETY_CHAOS_SEED sets it.
 */
export function seeded(label: string): { random: () => number; seed: number } {
  const seed = process.env.SURETY_CHAOS_SEED
    ? Number(process.env.SURETY_CHAOS_SEED)
    : Math.floor(Math.random() * 2 ** 31);
  process.stderr.write(`[faults] ${label}: seed ${seed} (SURETY_CHAOS_SEED=${seed} repeats it)\n`);
  let a = seed >>> 0;
  const random = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { random, seed };
}

/** One row of the chaos summary. */
export interface Figures {
  scenario: string;
  /** Logical operations (requests, events) the scenario ran. */
  operations: number;
  /** Faults injected (responses dropped, processes killed, backends terminated, receiver failures). */
  faults: number;
  /** Acknowledged operations whose effect is missing. */
  lost: number;
  /** Effects that happened more than once. */
  duplicated: number;
  /** Free-form details (attempts, statuses seen). */
  notes?: string;
}

/** Records a scenario's figures: on stderr, and in SURETY_CHAOS_REPORT (JSON lines) for the runner. */
export function report(figures: Figures): void {
  process.stderr.write(`[faults] ${JSON.stringify(figures)}\n`);
  const file = process.env.SURETY_CHAOS_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify(figures)}\n`);
}

export interface FaultProxyOptions {
  /** Where to forward: a port on 127.0.0.1. Changeable later (`proxy.target = port`). */
  target: number;
  /** Share of responses dropped after the server sent them. @default 0 */
  dropRate?: number;
  random?: () => number;
}

/**
 * A TCP proxy on 127.0.0.1 that forwards each request to the server, and for a share of the
 * responses closes the client's connection at the first byte of the answer instead of forwarding
 * it: the server did the work and answered, and the client never learns the outcome. An upstream
 * that refuses (a server being restarted) closes the client's connection too.
 */
export async function startFaultProxy(options: FaultProxyOptions) {
  const random = options.random ?? Math.random;
  const sockets = new Set<Socket>();
  const stats = { connections: 0, responses: 0, dropped: 0, refused: 0 };
  let target = options.target;
  let dropRate = options.dropRate ?? 0;
  const server: Server = createServer((client) => {
    stats.connections++;
    sockets.add(client);
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    sockets.add(upstream);
    // A request was forwarded since the last answer: the next upstream bytes start its response.
    let awaitingResponse = false;
    const kill = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('error', kill);
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') stats.refused++;
      kill();
    });
    client.on('data', (chunk) => {
      awaitingResponse = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (awaitingResponse) {
        awaitingResponse = false;
        stats.responses++;
        if (random() < dropRate) {
          stats.dropped++;
          kill();
          return;
        }
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    set target(port: number) {
      target = port;
    },
    set dropRate(rate: number) {
      dropRate = rate;
    },
    /** Cuts every open connection (a network partition of an instant). */
    cutAll() {
      for (const s of sockets) s.destroy();
    },
    close(): Promise<void> {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Runs `count` jobs with at most `concurrency` at once; resolves when all settled, in order. */
export async function pool<T>(
  count: number,
  concurrency: number,
  job: (i: number) => Promise<T>,
): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return results;
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it is true, or throws after `timeoutMs` with `what`. */
export async function until(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(everyMs);
  }
}

/**
 * The client of every fault scenario: automatic keys, short backoff, and a retry budget widened on
 * purpose (the default lets retries add ~10 % to the traffic; these scenarios fail 20-30 % of the
 * answers, which the default would rightly refuse to retry past).
 */
export const faultClient = (extra: Parameters<typeof createFetch>[0] = {}) =>
  createFetch({
    idempotencyKey: 'auto',
    maxAttempts: 200, // a restart on a loaded 2-core machine can take several seconds: the deadline bounds it
    deadlineMs: 90_000,
    attemptTimeoutMs: 10_000,
    baseDelayMs: 5,
    maxDelayMs: 500,
    retryBudget: { ratio: 1, maxTokens: 10_000 },
    ...extra,
  });
