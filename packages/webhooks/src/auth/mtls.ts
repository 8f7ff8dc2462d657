// mTLS endpoints' dispatchers: one guarded dispatcher per endpoint and client identity, made with
// the guard's own settings (allow-list, resolver, timeouts, proxy) plus the certificate and key, so
// every connection is still resolved and checked before it opens. A rotated identity gets a new
// dispatcher; the old one is closed gracefully (undici's close lets requests in flight finish), so an
// attempt sent with the old certificate completes and is recorded. A guard given its own `connector`
// (tests) opens sockets with that connector, which knows nothing of the identity: mTLS needs the
// default connector (or a proxy).
import { createGuardedDispatcher, type GuardedDispatcher, type GuardOptions } from '../ssrf/index.js';
import type { StoredAuth } from './config.js';

type Mtls = Extract<StoredAuth, { type: 'mtls' }>;

/** The dispatchers of one worker's mTLS endpoints, at most `maxEntries` (least recently used dropped). */
export class MtlsDispatchers {
  readonly #guard: GuardOptions;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { fingerprint: string; guard: GuardedDispatcher }>();
  readonly #closing = new Set<Promise<void>>();

  constructor(options: { guard: GuardOptions; maxEntries?: number }) {
    this.#guard = options.guard;
    this.#maxEntries = options.maxEntries ?? 256;
  }

  /** The dispatcher presenting `auth`'s identity for `endpoint` (made on first use). */
  for(endpoint: string, auth: Mtls): GuardedDispatcher {
    const entry = this.#entries.get(endpoint);
    // The fingerprint names the certificate; the key matched it when written, so it names the pair.
    if (entry && entry.fingerprint === auth.fingerprint) {
      this.#entries.delete(endpoint);
      this.#entries.set(endpoint, entry);
      return entry.guard;
    }
    if (entry) this.#retire(entry.guard);
    const base = this.#guard.tls ?? {};
    const guard = createGuardedDispatcher({
      ...this.#guard,
      tls: {
        ...base,
        cert: auth.certificate,
        key: auth.privateKey,
        ...(auth.ca !== null ? { ca: auth.ca } : {}),
      },
    });
    this.#entries.set(endpoint, { fingerprint: auth.fingerprint, guard });
    if (this.#entries.size > this.#maxEntries) {
      const [oldest, e] = this.#entries.entries().next().value!;
      this.#entries.delete(oldest);
      this.#retire(e.guard);
    }
    return guard;
  }

  /** Closes every dispatcher, after the requests in flight. */
  async close(): Promise<void> {
    for (const { guard } of this.#entries.values()) this.#retire(guard);
    this.#entries.clear();
    await Promise.all([...this.#closing]);
  }

  #retire(guard: GuardedDispatcher): void {
    const p = guard.close().catch(() => {});
    this.#closing.add(p);
    void p.finally(() => this.#closing.delete(p));
  }
}
