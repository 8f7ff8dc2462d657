// The OpenTelemetry plumbing the instrumented packages share (@surety/fetch, @surety/idempotency,
// @surety/webhooks, @surety/webhook-verify; docs/observability.md). Core depends on nothing, so the
// API module comes in as an argument, typed by the little of it used here: each package passes its own
// `@opentelemetry/api` (webhook-verify once its optional peer has loaded).

/** The part of `@opentelemetry/api` that `packageTracer` uses. */
export interface TracingApi<T> {
  trace: { getTracerProvider(): { getTracer(name: string, version?: string): T } };
  ProxyTracerProvider: new () => { getDelegate(): unknown };
}

/** One package's tracer and the check that lets its instrumentation step aside without an SDK. */
export interface PackageTracer<T> {
  /**
   * Whether an SDK has registered a tracer provider. Without one no span can record and nothing is
   * propagated, so the instrumentation steps aside at the cost of this check (bench/tracing).
   * Another copy of the API (not `instanceof`) counts as registered: the calls then run as usual.
   */
  sdkRegistered(): boolean;
  /**
   * The package's tracer, fetched again only when the global provider changes: `trace.getTracer`
   * allocates a proxy per call, which without an SDK would be most of what tracing costs.
   */
  tracer(): T;
}

/** The tracer of the package `name`@`version`, through `api` (the package's `@opentelemetry/api`). */
export function packageTracer<T>(api: TracingApi<T>, name: string, version: string): PackageTracer<T> {
  // The API's no-op provider, which the global proxy hands out until an SDK registers one.
  const noop = new api.ProxyTracerProvider().getDelegate();
  let provider: unknown;
  let cached: T | undefined;
  return {
    sdkRegistered() {
      const p = api.trace.getTracerProvider();
      return !(p instanceof api.ProxyTracerProvider && p.getDelegate() === noop);
    },
    tracer() {
      const current = api.trace.getTracerProvider();
      if (current !== provider || cached === undefined) {
        provider = current;
        cached = current.getTracer(name, version);
      }
      return cached;
    },
  };
}

/** The response headers an HTTP client span may carry (as `http.response.header.<name>`); no others. */
export const TRACED_RESPONSE_HEADERS: readonly string[] = ['content-type', 'retry-after'];

/**
 * The URL as a span may show it: scheme, host, port and path; no user, password, query or fragment
 * (a signed URL's token or an API key in a query string must not reach a trace backend).
 */
export function traceableUrl(url: string): { full: string; host: string; port: number } | undefined {
  try {
    const u = new URL(url);
    const port = u.port === '' ? (u.protocol === 'https:' ? 443 : 80) : Number(u.port);
    return { full: `${u.protocol}//${u.host}${u.pathname}`, host: u.hostname, port };
  } catch {
    return undefined;
  }
}

/** A span's `error.type` for an error: its string `code` (`ECONNRESET`, `SURETY_…`), else `_OTHER`. */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '_OTHER';
}
