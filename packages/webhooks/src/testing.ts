// Test helpers for code that sends webhooks: a recording receiver on 127.0.0.1 (port 0), and a
// delivery worker in its own process.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Queryable } from '@surety/db';
import type { WebhooksContext } from './context.js';
import { newId } from './ids.js';
import { publish } from './publishing/publish.js';
import { type ClaimParams, claimIn } from './sql/claim.js';
import { type AttemptRow, completeDeliveries, type DeliveryOutcome } from './sql/complete.js';
import type { PublishedEvent, PublishInput } from './types.js';
import { contextOf, type Webhooks } from './webhooks.js';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  path: string;
}

export type Behaviour = (req: Received, n: number, res: ServerResponse) => void | Promise<void>;

/** A webhook receiver on 127.0.0.1, port 0, that records every request and answers per `behaviour`. */
export async function startReceiver(behaviour: Behaviour = (_r, _n, res) => void res.writeHead(204).end()) {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let current = behaviour;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        path: req.url ?? '/',
      };
      received.push(r);
      for (const w of waiters.filter((w) => received.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      Promise.resolve(current(r, received.length, res)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    set behaviour(b: Behaviour) {
      current = b;
    },
    /** Resolves once `count` requests arrived, or rejects after `timeoutMs`. */
    waitFor(count: number, timeoutMs = 10_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.length} of ${count} requests arrived`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/**
 * Starts a DeliveryWorker in its own process (delivery/worker-process.ts under this module) on
 * `schema` of `databaseUrl`; resolves once it is claiming. env: LEASE_MS, TIMEOUT_MS, SCHEDULE.
 */
export function spawnWorkerProcess(options: {
  databaseUrl: string;
  schema: string;
  env?: Record<string, string>;
}): Promise<ChildProcess> {
  // Under this module: src/delivery/worker-process.ts when the tests run on the sources (then with tsx and the
  // sources' condition), dist/delivery/worker-process.js from the built or published package (plain node).
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(
    new URL(fromSource ? './delivery/worker-process.ts' : './delivery/worker-process.js', import.meta.url),
  );
  const args = fromSource ? ['--conditions=@surety/source', '--import', 'tsx', entry] : [entry];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DATABASE_URL: options.databaseUrl, SCHEMA: options.schema, ...options.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('worker did not start'));
    }, 90_000); // only a hang: start-up took seconds on a loaded CI machine
    child.stdout!.on('data', (c: Buffer) => {
      if (c.toString().includes('ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited ${code}`));
    });
  });
}

/** Sends `signal` to a child process (unless it already exited) and resolves when it has exited. */
export const stopProcess = (child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM') =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });

/**
 * An engine's internals (its prepared statements, NOTIFY channel and clock), for tests of the
 * package's own SQL (plans, claims under caps) and benchmarks. Not part of the API: statements and
 * their parameters change without notice. `now` may be replaced (a test that needs wall-clock time), and `dbNow`, the database clock
 * partition maintenance decides by (a test that moves time with an injected clock).
 */
export const webhooksInternals = (webhooks: Webhooks): WebhooksContext => contextOf(webhooks);

/** The first part of an id made at a time (`dlv_` and 8 characters): the publish statement's $12. */
export { idTimePrefix } from './ids.js';

/**
 * `publish` with no after-commit wake-up (the same outbox write): for benchmarks that compare how the
 * workers are woken. Not part of the API, like `webhooksInternals`.
 */
export const publishUnwoken = (
  tx: Queryable,
  webhooks: Webhooks,
  input: PublishInput,
): Promise<PublishedEvent> => publish({ ...contextOf(webhooks), wake: () => {} }, tx, input);
/** The pick's parameters from a claim's (`claimOnce`'s) values: for plans of the pick alone. */
export { pickParams } from './sql/claim.js';
/** The LISTEN/NOTIFY channel an engine on `schema` wakes its workers on (benchmarks that notify by hand). */
export { notifyChannel } from './sql/schema.js';

/**
 * One claim as the worker runs it (the pick, then the take), in a transaction the caller began with
 * `webhooksInternals(w).st.claimSettings`: for tests of the claim's caps and leases, and benchmarks.
 * Not part of the API, like `webhooksInternals`.
 */
export const claimOnce = (tx: Queryable, webhooks: Webhooks, params: ClaimParams) =>
  claimIn(tx, contextOf(webhooks).st, params);

/**
 * One batch of outcomes written as the worker writes them (its completion statement, fenced by
 * `workerId`, with the attempt rows; each attempt's id made from its start time unless given): for
 * benchmarks of the drain's database side. Not part of the API, like `webhooksInternals`.
 */
export const completeOnce = (
  q: Queryable,
  webhooks: Webhooks,
  input: {
    nowIso: string;
    workerId: string;
    outcomes: readonly DeliveryOutcome[];
    attempts: readonly (Omit<AttemptRow, 'id'> & { id?: string })[];
  },
): Promise<{ completed: number; attempts: number; failed: string[] }> =>
  completeDeliveries(q, contextOf(webhooks).st, {
    ...input,
    attempts: input.attempts.map((a) => ({ ...a, id: a.id ?? newId('att', Date.parse(a.startedAt)) })),
  });
