// OAuth2 client-credentials tokens (RFC 6749 §4.4) for the endpoints that use them: requested
// through the same SSRF guard as deliveries, cached per endpoint in the worker's memory until shortly
// before they expire, shared by the attempts in flight (one request per endpoint at a time), and
// dropped when the receiver answers 401. The token endpoint is untrusted: its answer is read up to
// a cap within a deadline, and anything but a JSON body with a usable `access_token` is an attempt
// recorded as `auth_token_failed`. Nothing here logs; messages never quote a secret or a token.
import { createHash } from 'node:crypto';
import { type GuardedDispatcher, guardedPost } from '../ssrf/index.js';
import type { StoredAuth } from './config.js';

type OAuth2 = Extract<StoredAuth, { type: 'oauth2' }>;

/** The code of every failure to obtain a token: the attempt is recorded with it, and retried. */
export const AUTH_TOKEN_FAILED = 'auth_token_failed';

/** A token could not be obtained; `code` is always `auth_token_failed`, the message says why. */
export class AuthTokenError extends Error {
  readonly code = AUTH_TOKEN_FAILED;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthTokenError';
  }
}

/** Options of {@link TokenCache}. */
export interface TokenCacheOptions {
  /** Token requests go through it (its allow-list, resolver, proxy). */
  guard: GuardedDispatcher;
  /** Injected clock. @default Date.now */
  now?: () => number;
  /**
   * A token is renewed this long before it expires (a request in flight must not carry an expired
   * one), or at half its lifetime when that is shorter.
   * @default 30000
   */
  marginMs?: number;
  /** The lifetime assumed when the answer has no `expires_in`. @default 300000 (5 minutes) */
  defaultLifetimeMs?: number;
  /** Longest lifetime believed, whatever `expires_in` says. @default 86400000 (24 hours) */
  maxLifetimeMs?: number;
  /** Budget of one token request (connect, answer, body), in ms. @default 5000 */
  timeoutMs?: number;
  /** Most bytes of a token answer read; a longer one fails. @default 16384 */
  maxResponseBytes?: number;
  /**
   * After a failed request, the endpoint's next attempts fail at once for this long instead of
   * asking again: a backlog of deliveries does not turn into a burst at a broken token endpoint.
   * @default 1000
   */
  failureHoldMs?: number;
  /** Most endpoints whose tokens are kept; the oldest entry is dropped beyond. @default 10000 */
  maxEntries?: number;
}

interface Entry {
  /** Which credentials the entry is for: a rotated auth never uses the old one's token. */
  key: string;
  token?: string;
  /** When the token stops being used (expiry minus the margin). */
  renewAt?: number;
  pending?: Promise<string>;
  failed?: { until: number; error: AuthTokenError };
}

/** Longest token accepted, in characters. */
const MAX_TOKEN = 8192;
// RFC 6750 §2.1 b64token, widened to any visible ASCII (some servers send JWTs with other
// characters); never a space, CR, LF or anything that could end the header.
const TOKEN = /^[\x21-\x7e]+$/;

/**
 * The tokens of one worker's OAuth2 endpoints.
 * @example
 * const tokens = new TokenCache({ guard });
 * const bearer = await tokens.get('acme/we_1', auth); // fetched once, then cached
 * tokens.invalidate('acme/we_1', bearer);            // the receiver answered 401
 */
export class TokenCache {
  readonly #guard: GuardedDispatcher;
  readonly #now: () => number;
  readonly #marginMs: number;
  readonly #defaultLifetimeMs: number;
  readonly #maxLifetimeMs: number;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #failureHoldMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry>();
  /** Token requests sent (tests, metrics). */
  requests = 0;

  constructor(options: TokenCacheOptions) {
    this.#guard = options.guard;
    this.#now = options.now ?? Date.now;
    this.#marginMs = options.marginMs ?? 30_000;
    this.#defaultLifetimeMs = options.defaultLifetimeMs ?? 300_000;
    this.#maxLifetimeMs = options.maxLifetimeMs ?? 86_400_000;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#maxBytes = options.maxResponseBytes ?? 16_384;
    this.#failureHoldMs = options.failureHoldMs ?? 1_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** A token for `endpoint` (any string naming it uniquely): the cached one, or a new one. */
  get(endpoint: string, auth: OAuth2): Promise<string> {
    const key = credentialsKey(auth);
    const now = this.#now();
    let entry = this.#entries.get(endpoint);
    if (entry && entry.key !== key) entry = undefined; // rotated: the old token is not this client's
    if (entry?.token !== undefined && entry.renewAt! > now) return Promise.resolve(entry.token);
    if (entry?.pending) return entry.pending;
    if (entry?.failed && entry.failed.until > now) return Promise.reject(entry.failed.error);
    const fresh: Entry = { key };
    fresh.pending = this.#request(auth).then(
      ({ token, lifetimeMs }) => {
        const at = this.#now();
        fresh.token = token;
        fresh.renewAt = at + Math.max(0, lifetimeMs - Math.min(this.#marginMs, lifetimeMs / 2));
        fresh.pending = undefined;
        return token;
      },
      (error: unknown) => {
        const e =
          error instanceof AuthTokenError ? error : new AuthTokenError(String(error), { cause: error });
        fresh.pending = undefined;
        if (this.#failureHoldMs > 0) fresh.failed = { until: this.#now() + this.#failureHoldMs, error: e };
        else if (this.#entries.get(endpoint) === fresh) this.#entries.delete(endpoint);
        throw e;
      },
    );
    this.#entries.delete(endpoint); // re-inserted last: the map's order is the eviction order
    this.#entries.set(endpoint, fresh);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return fresh.pending;
  }

  /**
   * The receiver refused `token` (401): the next attempt asks for a new one. A newer token that
   * another attempt has fetched meanwhile is kept.
   */
  invalidate(endpoint: string, token: string): void {
    const entry = this.#entries.get(endpoint);
    if (entry?.token === token) this.#entries.delete(endpoint);
  }

  /** Forgets every token. */
  clear(): void {
    this.#entries.clear();
  }

  async #request(auth: OAuth2): Promise<{ token: string; lifetimeMs: number }> {
    this.requests++;
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (auth.scope !== null) form.set('scope', auth.scope);
    if (auth.audience !== null) form.set('audience', auth.audience);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (auth.clientAuth === 'body') {
      form.set('client_id', auth.clientId);
      form.set('client_secret', auth.clientSecret);
    } else {
      // RFC 6749 §2.3.1: each part form-urlencoded before the Basic encoding.
      const user = `${formEncode(auth.clientId)}:${formEncode(auth.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    }
    let res: Awaited<ReturnType<typeof guardedPost>>;
    try {
      res = await guardedPost(this.#guard, auth.tokenUrl, {
        headers,
        body: form.toString(),
        timeoutMs: this.#timeoutMs,
        maxResponseBytes: this.#maxBytes,
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new AuthTokenError(
        `token endpoint: ${typeof code === 'string' ? code : 'request_failed'}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (res.status !== 200)
      throw new AuthTokenError(`token endpoint answered ${res.status} (expected 200 with a token)`);
    if (res.truncated) throw new AuthTokenError(`token endpoint's answer is over ${this.#maxBytes} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(res.bodyExcerpt);
    } catch {
      throw new AuthTokenError('token endpoint answered something that is not JSON');
    }
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const token = b.access_token;
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN || !TOKEN.test(token))
      throw new AuthTokenError('token endpoint answered no usable access_token');
    if (
      b.token_type !== undefined &&
      (typeof b.token_type !== 'string' || b.token_type.toLowerCase() !== 'bearer')
    )
      throw new AuthTokenError('token endpoint answered a token_type other than Bearer');
    const seconds = typeof b.expires_in === 'string' ? Number(b.expires_in) : b.expires_in;
    const lifetimeMs =
      typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0
        ? Math.min(seconds * 1000, this.#maxLifetimeMs)
        : this.#defaultLifetimeMs;
    return { token, lifetimeMs };
  }
}

/** application/x-www-form-urlencoded, as RFC 6749 Appendix B asks of the client id and secret. */
const formEncode = (s: string) => new URLSearchParams({ s }).toString().slice(2);

/** A digest of the credentials that make a token (the secret is never kept as a map key). */
const credentialsKey = (a: OAuth2) =>
  createHash('sha256')
    .update(JSON.stringify([a.tokenUrl, a.clientId, a.clientSecret, a.scope, a.audience, a.clientAuth]))
    .digest('base64url');
