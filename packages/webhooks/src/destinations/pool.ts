// Broker connections, pooled per (tenant, endpoint, URL, credentials, checked address): a tenant's
// connection is never shared with another tenant's endpoint, and a changed URL, credential or DNS
// answer opens a new one. Lifetimes are bounded: a connection older than `maxLifetimeMs` takes no
// new attempts and closes when its last one ends; one idle for `idleMs` closes; at most
// `maxConnections` are open (the least recently used idle one closes first). A connection that
// failed an attempt in a way that leaves its state unknown (a timeout, a dropped socket) is retired.
import { BrokerError } from './errors.js';
import type { BrokerDriver, BrokerTarget, SignedMessage } from './types.js';

interface Entry {
  key: string;
  driver: BrokerDriver<unknown>;
  ready: Promise<unknown>;
  connection: unknown;
  createdAt: number;
  lastUsed: number;
  inflight: number;
  retired: boolean;
}

export interface PoolOptions {
  /** @default 300000 (5 minutes) */
  maxLifetimeMs?: number;
  /** @default 60000 */
  idleMs?: number;
  /** @default 1000 */
  maxConnections?: number;
  /** Injected clock. @default Date.now */
  now?: () => number;
}

export class BrokerPool {
  readonly #entries = new Map<string, Entry>();
  readonly #maxLifetimeMs: number;
  readonly #idleMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  constructor(options: PoolOptions = {}) {
    this.#maxLifetimeMs = options.maxLifetimeMs ?? 300_000;
    this.#idleMs = options.idleMs ?? 60_000;
    this.#max = options.maxConnections ?? 1000;
    this.#now = options.now ?? Date.now;
    this.#sweeper = setInterval(() => this.sweep(), Math.min(10_000, this.#idleMs)).unref();
  }

  /** Open connections (connecting ones included). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * Publishes through a pooled connection (opened within the target's connect timeout), resolving on
   * the broker's confirmation; `signal` bounds the whole attempt.
   */
  async send<C>(
    driver: BrokerDriver<C>,
    key: string,
    target: BrokerTarget,
    message: SignedMessage,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.#closed) throw new BrokerError('connection_error', 'the worker is stopping');
    const entry = this.#entry(driver as BrokerDriver<unknown>, key, target, signal);
    entry.inflight++;
    entry.lastUsed = this.#now();
    try {
      const c = (await entry.ready) as C;
      await driver.send(c, target, message, signal);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'timeout' || entry.connection === undefined || !driver.usable(entry.connection as C))
        this.#retire(entry);
      throw error;
    } finally {
      entry.inflight--;
      if (entry.retired && entry.inflight === 0) void this.#close(entry);
    }
  }

  #entry(driver: BrokerDriver<unknown>, key: string, target: BrokerTarget, signal: AbortSignal): Entry {
    const now = this.#now();
    const found = this.#entries.get(key);
    if (found && !found.retired) {
      const old = now - found.createdAt > this.#maxLifetimeMs;
      if (!old && (found.connection === undefined || driver.usable(found.connection))) return found;
      this.#retire(found);
    }
    if (this.#entries.size >= this.#max) this.#evictIdle();
    const connect = AbortSignal.any([signal, AbortSignal.timeout(target.connectTimeoutMs)]);
    const entry: Entry = {
      key,
      driver,
      ready: driver.connect(target, connect),
      connection: undefined,
      createdAt: now,
      lastUsed: now,
      inflight: 0,
      retired: false,
    };
    entry.ready.then(
      (c) => {
        entry.connection = c;
        if (this.#closed) this.#retire(entry);
      },
      () => this.#retire(entry),
    );
    this.#entries.set(key, entry);
    return entry;
  }

  /** No new attempts; closed once its last attempt ends. */
  #retire(entry: Entry): void {
    if (this.#entries.get(entry.key) === entry) this.#entries.delete(entry.key);
    if (entry.retired) return;
    entry.retired = true;
    if (entry.inflight === 0) void this.#close(entry);
  }

  async #close(entry: Entry): Promise<void> {
    const c = await entry.ready.catch(() => undefined);
    if (c !== undefined) await entry.driver.close(c).catch(() => {});
  }

  #evictIdle(): void {
    let oldest: Entry | undefined;
    for (const e of this.#entries.values())
      if (e.inflight === 0 && (!oldest || e.lastUsed < oldest.lastUsed)) oldest = e;
    if (oldest) this.#retire(oldest);
  }

  /** Closes expired and idle connections (runs on a timer). */
  sweep(): void {
    const now = this.#now();
    for (const e of [...this.#entries.values()]) {
      if (now - e.createdAt > this.#maxLifetimeMs || (e.inflight === 0 && now - e.lastUsed > this.#idleMs))
        this.#retire(e);
    }
  }

  /** Closes every connection (attempts in flight end first: the worker waits for them). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    const all = [...this.#entries.values()];
    for (const e of all) this.#retire(e);
    await Promise.all(all.map((e) => this.#close(e)));
  }
}
