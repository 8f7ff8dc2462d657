// An undici dispatcher that can only open connections to checked addresses. The check lives in the
// connector, the one place every new socket passes through: it resolves the name once, refuses the
// target if any answer is blocked, and hands the checked IP (not the name) to the socket, keeping the
// name as TLS servername so SNI and certificate verification still use it. A DNS server that answers
// differently the second time is never asked a second time.
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher, Pool, ProxyAgent } from 'undici';
import type { AllowList } from './classify.js';
import { DeliveryError, SsrfBlockedError } from './errors.js';
import { stripBrackets } from './ip.js';
import { type Resolver, resolveTarget, systemResolver, type TargetCheck } from './resolve.js';

/**
 * The function that opens a socket: undici's connector signature. The default is undici's
 * `buildConnector`; tests inject one that records the address it was asked for and never connects.
 */
export type Connector = buildConnector.connector;

/** Options of {@link createGuardedDispatcher}. */
export interface GuardOptions {
  /**
   * CIDRs that may be targeted although they are special, e.g. `allowListFromEnv()` for
   * `SURETY_WEBHOOK_ALLOWED_CIDRS=127.0.0.1/32`.
   * @default []
   */
  allowList?: AllowList;
  /**
   * Accept `http:` targets (development and tests).
   * @default false
   */
  allowHttp?: boolean;
  /**
   * Resolves host names at connect time.
   * @default systemResolver (dns.promises.lookup with all: true)
   */
  resolver?: Resolver;
  /**
   * Budget for DNS + TCP connect + TLS handshake, in ms (`connect_timeout`; a DNS timeout is `dns_failed`).
   * @default 5000
   */
  connectTimeoutMs?: number;
  /**
   * Default whole-attempt budget of {@link guardedPost}, in ms (`timeout`).
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Default response-body cap of {@link guardedPost}, in bytes.
   * @default 65536
   */
  maxResponseBytes?: number;
  /**
   * Longest accepted URL, in characters.
   * @default 2048
   */
  maxUrlLength?: number;
  /**
   * An HTTP(S) egress proxy (`http://proxy.internal:3128`). Targets are still resolved and checked
   * here, and the proxy is asked to `CONNECT` to the checked IP, never to the name. The proxy's own
   * address is trusted (it is operator configuration, not tenant input).
   * @default undefined (connect directly)
   */
  proxy?: string | URL;
  /**
   * Opens the socket once the target is checked. Tests inject a recorder; not combinable with `proxy`.
   * @default buildConnector({ timeout: connectTimeoutMs, ...tls })
   */
  connector?: Connector;
  /**
   * Extra TLS options for target connections (e.g. `ca` for a private CA in tests; `cert` and `key`:
   * a client identity, which an mTLS endpoint's own dispatcher sets, auth/mtls.ts).
   * @default {}
   */
  tls?: {
    ca?: string | Buffer | Array<string | Buffer>;
    rejectUnauthorized?: boolean;
    cert?: string | Buffer;
    key?: string | Buffer;
  };
  /**
   * Called with every decision (allowed or blocked), for logs and metrics.
   * @default undefined
   */
  onCheck?: (check: TargetCheck) => void;
}

/** The settings a {@link GuardedDispatcher} runs with, defaults applied. */
export interface ResolvedGuardOptions {
  readonly allowList: AllowList;
  readonly allowHttp: boolean;
  readonly resolver: Resolver;
  readonly connectTimeoutMs: number;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxUrlLength: number;
  readonly proxy: string | undefined;
}

/** A dispatcher whose every connection is checked, with the settings {@link guardedPost} needs. */
export interface GuardedDispatcher {
  /**
   * The undici dispatcher. Safe on its own (`undici.request(url, { dispatcher })` is checked at
   * connect time too), but {@link guardedPost} adds URL validation, timeouts and the body cap.
   */
  readonly dispatcher: Dispatcher;
  readonly options: ResolvedGuardOptions;
  /** Closes idle connections and waits for in-flight requests. */
  close(): Promise<void>;
}

/** @internal the defaults, in one place */
export const guardDefaults = {
  allowHttp: false,
  connectTimeoutMs: 5_000,
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
  maxUrlLength: 2048,
} as const;

/**
 * Creates the dispatcher webhook deliveries go through. Every new connection resolves the target
 * (default `dns.promises.lookup`, all answers), refuses it with `ssrf_blocked` if ANY answer is
 * blocked, and connects to exactly the first checked address. Redirects are never followed (undici's
 * `request` does not; no redirect interceptor is composed in).
 * @default options { allowList: [], allowHttp: false, resolver: systemResolver, connectTimeoutMs: 5000,
 *   timeoutMs: 10000, maxResponseBytes: 65536, maxUrlLength: 2048, proxy: undefined }
 * @example
 * const guard = createGuardedDispatcher({ allowList: allowListFromEnv() });
 * const res = await guardedPost(guard, endpoint.url, { headers, body });
 * await guard.close();
 */
export function createGuardedDispatcher(options: GuardOptions = {}): GuardedDispatcher {
  const resolved: ResolvedGuardOptions = {
    allowList: options.allowList ?? [],
    allowHttp: options.allowHttp ?? guardDefaults.allowHttp,
    resolver: options.resolver ?? systemResolver,
    connectTimeoutMs: options.connectTimeoutMs ?? guardDefaults.connectTimeoutMs,
    timeoutMs: options.timeoutMs ?? guardDefaults.timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? guardDefaults.maxResponseBytes,
    maxUrlLength: options.maxUrlLength ?? guardDefaults.maxUrlLength,
    proxy: options.proxy === undefined ? undefined : String(options.proxy),
  };
  const guard = (base: Connector) => guardConnector(base, { ...resolved, onCheck: options.onCheck });
  const tls = options.tls ?? {};
  let dispatcher: Dispatcher;
  if (resolved.proxy !== undefined) {
    if (options.connector) throw new TypeError('connector and proxy cannot be combined');
    dispatcher = new ProxyAgent({
      uri: resolved.proxy,
      proxyTls: { timeout: resolved.connectTimeoutMs },
      requestTls: { timeout: resolved.connectTimeoutMs, ...tls },
      // The agent's connect function opens the CONNECT tunnel to `opts.host`; wrapping it means the
      // tunnel is requested to the checked IP.
      factory: (origin: string | URL, opts: object) => {
        const inner = (opts as { connect: Connector }).connect;
        return new Pool(origin, { ...opts, connect: guard(inner) });
      },
    });
  } else {
    const base = options.connector ?? buildConnector({ timeout: resolved.connectTimeoutMs, ...tls });
    dispatcher = new Agent({ connect: guard(base) });
  }
  return { dispatcher, options: resolved, close: () => dispatcher.close() };
}

/**
 * Wraps a connector so that it resolves and checks the target first and then connects to the
 * checked IP. The whole of resolve + connect + TLS must finish within `connectTimeoutMs`.
 * @example
 * const connect = guardConnector(buildConnector({}), { allowList: [], resolver: systemResolver, connectTimeoutMs: 5000 });
 * // `onCheck` sees every target check (the address chosen, or why none was).
 * new Agent({ connect });
 */
export function guardConnector(
  base: Connector,
  options: Pick<ResolvedGuardOptions, 'allowList' | 'resolver' | 'connectTimeoutMs'> & {
    onCheck?: ((check: TargetCheck) => void) | undefined;
  },
): Connector {
  const { allowList, resolver, connectTimeoutMs, onCheck } = options;
  return (opts, callback) => {
    const hostname = stripBrackets(opts.hostname);
    let done = false;
    // undici's connector returns the socket it is opening (its type says void); kept so a timeout
    // here can destroy a half-open connection instead of leaving it to finish in the background.
    let pending: { destroy(): void } | undefined;
    const finish = (err: Error | null, socket?: unknown) => {
      const s = socket as { destroy(): void } | null | undefined;
      if (done) {
        s?.destroy();
        return;
      }
      done = true;
      clearTimeout(timer);
      if (err) {
        pending?.destroy();
        callback(err, null);
      } else callback(null, s as never);
    };
    const timer = setTimeout(
      () =>
        finish(
          new DeliveryError('connect_timeout', `no connection to ${hostname} within ${connectTimeoutMs} ms`),
        ),
      connectTimeoutMs,
    );
    resolveTarget(hostname, { resolver, allowList, timeoutMs: connectTimeoutMs }).then(
      (check) => {
        onCheck?.(check);
        if (done) return;
        const ipHost = check.family === 6 ? `[${check.address}]` : check.address;
        // SNI and certificate checks use the name the endpoint was registered with, never the IP
        // (RFC 6066 3: literal IPs are not sent as server_name).
        const servername =
          opts.servername || (isIP(hostname) === 0 ? hostname.replace(/\.$/, '') : undefined);
        const target: buildConnector.Options = {
          ...opts,
          hostname: check.address,
          host: opts.port ? `${ipHost}:${opts.port}` : ipHost,
        };
        if (servername) target.servername = servername;
        else delete target.servername;
        const returned: unknown = base(target, (err, socket) => finish(err, socket));
        if (returned && typeof (returned as { destroy?: unknown }).destroy === 'function') {
          pending = returned as { destroy(): void };
        }
      },
      (err: unknown) => {
        if (err instanceof SsrfBlockedError) {
          onCheck?.({ hostname, addresses: err.addresses, blocked: err.blocked });
        }
        finish(err instanceof Error ? err : new Error(String(err)));
      },
    );
  };
}
