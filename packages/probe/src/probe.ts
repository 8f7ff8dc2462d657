/**
 * `probe()`: which rules apply to the operation, run in order, and the report. A POST gets the
 * Idempotency-Key rules, and the read rule on the resource its first answer names in Location (same
 * origin only); GET, PUT, PATCH and DELETE get the precondition rules on the URL itself.
 */
import { type ClientOptions, createClient, httpUrl, ProbeError } from './client.js';
import { probeIdempotency } from './idempotency.js';
import type { Context, Operation } from './operation.js';
import { probePreconditions } from './preconditions.js';
import type { RuleResult, Verdict } from './rules.js';

export type Suite = 'idempotency' | 'preconditions';

export interface ProbeOptions extends ClientOptions {
  url: string;
  /** @default 'POST' */
  method?: string;
  /** Headers sent with every request, e.g. `{ authorization: 'Bearer …' }`. */
  headers?: Record<string, string>;
  /** The request body (JSON, usually). `{{uuid}}` is replaced by one UUID per probe. */
  body?: string;
  /** A second valid body for the key-reuse rule. @default derived from `body` */
  altBody?: string;
  /** Which rule sets to run. @default by method (see the module comment) */
  suites?: Suite[];
  /**
   * An operation that runs longer than this (a first request's time minus a replay's) proves that
   * duplicates sent at once arrived while it ran. @default 250
   */
  inFlightMs?: number;
  /** Concurrent duplicates sent by the in-flight rules. @default 3 */
  duplicates?: number;
}

export interface ProbeReport {
  method: string;
  url: string;
  results: RuleResult[];
  requests: number;
  durationMs: number;
  counts: Record<Verdict, number>;
  /** No MUST failed. */
  ok: boolean;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export async function probe(options: ProbeOptions): Promise<ProbeReport> {
  const started = performance.now();
  const url = httpUrl(options.url);
  const method = (options.method ?? 'POST').toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw new ProbeError('SURETY_PROBE_INPUT', `not a method: ${method}`);
  for (const name of Object.keys(options.headers ?? {}))
    if (!HEADER_NAME.test(name)) throw new ProbeError('SURETY_PROBE_INPUT', `not a header name: ${name}`);
  const uuid = crypto.randomUUID();
  const fill = (text: string | undefined) => text?.replaceAll('{{uuid}}', uuid);
  const operation: Operation = {
    url: url.href,
    method,
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: fill(options.body) } : {}),
    ...(options.altBody !== undefined ? { altBody: fill(options.altBody) } : {}),
  };
  const client = createClient(options);
  const ctx: Context = {
    client,
    operation,
    inFlightMs: options.inFlightMs ?? 250,
    duplicates: options.duplicates ?? 3,
  };
  const suites = options.suites ?? (method === 'POST' ? ['idempotency', 'preconditions'] : ['preconditions']);
  const results: RuleResult[] = [];
  if (suites.includes('idempotency')) {
    const { results: keyed, first } = await probeIdempotency(ctx);
    results.push(...keyed);
    const location = first?.headers.location;
    if (suites.includes('preconditions') && method === 'POST' && location) {
      const resource = new URL(location, url);
      if (resource.origin === url.origin)
        results.push(...(await probePreconditions(ctx, resource.href, false)));
    }
  }
  if (suites.includes('preconditions') && method !== 'POST')
    results.push(...(await probePreconditions(ctx, url.href, method !== 'GET' && method !== 'HEAD')));
  const counts: Record<Verdict, number> = { pass: 0, fail: 0, inconclusive: 0, 'not-applicable': 0 };
  for (const r of results) counts[r.verdict] += 1;
  return {
    method,
    url: url.href,
    results,
    requests: client.sent,
    durationMs: Math.round(performance.now() - started),
    counts,
    ok: !results.some((r) => r.level === 'MUST' && r.verdict === 'fail'),
  };
}
