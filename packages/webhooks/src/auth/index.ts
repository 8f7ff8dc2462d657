// Receiver authentication at delivery time: the worker's default POST, given an endpoint's stored
// auth, adds what the receiver asks for (docs/receiver-auth.md). Basic credentials and bearer
// tokens are headers added here, after the attempt span has seen the request (tracing.ts records
// no request header anyway); an mTLS identity is the dispatcher the attempt goes through.
import {
  DeliveryError,
  type GuardedDispatcher,
  type GuardedPostOptions,
  type GuardedResponse,
  type GuardOptions,
  guardedPost,
} from '../ssrf/index.js';
import type { StoredAuth } from './config.js';
import { MtlsDispatchers } from './mtls.js';
import { TokenCache, type TokenCacheOptions } from './token.js';

export type {
  BasicAuthInput,
  EndpointAuth,
  EndpointAuthInput,
  MtlsAuthInput,
  OAuth2AuthInput,
  StoredAuth,
} from './config.js';
export { AUTH_LIMITS, AUTH_TYPES, checkAuth, redactAuth } from './config.js';
export { InvalidAuthError, isInvalidAuthError } from './errors.js';
export { MtlsDispatchers } from './mtls.js';
export { AUTH_TOKEN_FAILED, AuthTokenError, TokenCache, type TokenCacheOptions } from './token.js';

/** An attempt's credentials: the endpoint (a cache key: tenant and id) and its stored auth. */
export interface AttemptAuth {
  endpoint: string;
  config: StoredAuth;
}

/** Options of a worker's receiver authentication (`DeliveryWorkerOptions.auth`). */
export type ReceiverAuthOptions = Omit<TokenCacheOptions, 'guard'> & {
  /** Most mTLS endpoints whose connections are kept open at once. @default 256 */
  maxMtlsEndpoints?: number;
};

/**
 * One worker's receiver authentication: the OAuth2 tokens (token.ts) and the mTLS dispatchers
 * (mtls.ts), both in the worker's memory. Token requests go through `guard`, the deliveries' own.
 * @example
 * const auth = new ReceiverAuth({ guard, guardOptions });
 * const res = await auth.post(url, { headers, body, timeoutMs: 10_000 }, { endpoint: 'acme/we_1', config });
 */
export class ReceiverAuth {
  readonly #guard: GuardedDispatcher;
  readonly tokens: TokenCache;
  readonly #mtls: MtlsDispatchers;

  constructor(input: {
    guard: GuardedDispatcher;
    guardOptions: GuardOptions;
    options?: ReceiverAuthOptions;
  }) {
    this.#guard = input.guard;
    const { maxMtlsEndpoints, ...tokenOptions } = input.options ?? {};
    this.tokens = new TokenCache({ ...tokenOptions, guard: input.guard });
    this.#mtls = new MtlsDispatchers({
      guard: input.guardOptions,
      ...(maxMtlsEndpoints !== undefined ? { maxEntries: maxMtlsEndpoints } : {}),
    });
  }

  /**
   * POSTs with `auth`'s credentials. Throws what guardedPost throws, and AuthTokenError
   * (`auth_token_failed`) when no token could be had; a 401 to a bearer token drops it.
   */
  async post(url: string, request: GuardedPostOptions, auth: AttemptAuth): Promise<GuardedResponse> {
    const a = auth.config;
    switch (a.type) {
      case 'basic':
        return guardedPost(this.#guard, url, {
          ...request,
          headers: { ...request.headers, authorization: basic(a.username, a.password) },
        });
      case 'oauth2': {
        const token = await this.tokens.get(auth.endpoint, a);
        const res = await guardedPost(this.#guard, url, {
          ...request,
          headers: { ...request.headers, authorization: `Bearer ${token}` },
        });
        if (res.status === 401) this.tokens.invalidate(auth.endpoint, token);
        return res;
      }
      case 'mtls':
        return guardedPost(this.#mtls.for(auth.endpoint, a), url, request).catch((error: unknown) => {
          throw refusedIdentity(error);
        });
    }
  }

  /** Closes the mTLS connections (after their requests in flight) and forgets the tokens. */
  async close(): Promise<void> {
    this.tokens.clear();
    await this.#mtls.close();
  }
}

/**
 * A TLS 1.3 server verifies the client certificate after the handshake has completed on the client's
 * side, and one that refuses it closes the connection (with an alert Node does not always surface
 * before the close): undici then reports `other side closed`, a `connection_error`. On an mTLS
 * endpoint that close, before any answer, is recorded as `tls_error`, which is what it almost always
 * is, with a message that says so; every other error is left as it was.
 */
function refusedIdentity(error: unknown): unknown {
  if (!(error instanceof DeliveryError) || error.code !== 'connection_error') return error;
  const cause = error.cause as { code?: unknown } | undefined;
  if (cause?.code !== 'UND_ERR_SOCKET') return error;
  return new DeliveryError(
    'tls_error',
    `the receiver closed the connection without answering (${error.message}): with TLS 1.3 this is how ` +
      'a refused client certificate shows; check the certificate and the CA the receiver trusts',
    { cause: error },
  );
}

/** RFC 7617: `Basic base64(user-id ":" password)`, UTF-8. */
const basic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
