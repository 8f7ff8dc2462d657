// The engine context (issue 34): what every operation of the package runs with, built once by the
// Webhooks façade from its options. Each operation is `fn(ctx, q, input)`; none imports the façade
// (docs/decisions.md, "@surety/webhooks on one engine context"), as @surety/idempotency's EngineContext.
import type { Queryable, Sql } from '@surety/db';
import { CommitNotifier } from './publishing/notify.js';
import { statements } from './sql/index.js';
import { databaseNow } from './sql/partitions.js';
import { notifyChannel } from './sql/schema.js';
import type { AllowList } from './ssrf/index.js';
import type { WebhooksOptions } from './types.js';

/** An engine's settings, resolved once, its statements, clocks and NOTIFY. Internal to the package. */
export interface WebhooksContext {
  readonly sql: Sql;
  /** The schema's prepared statements and quoted table names (sql/index.ts). */
  readonly st: ReturnType<typeof statements>;
  readonly schema: string;
  readonly apiVersion: string;
  readonly allowHttp: boolean;
  readonly allowList: AllowList;
  readonly maxEndpointsPerTenant: number;
  /** The `validate` option: a publish's type and data checked before anything is written. */
  readonly validate: ((type: string, data: unknown) => void) | undefined;
  /** The LISTEN/NOTIFY channel workers wait on (per schema). */
  readonly channel: string;
  /** NOTIFY after a commit that created deliveries (publishing/notify.ts: folded while one is in flight). */
  readonly wake: () => void;
  /** The engine's clock. Mutable for the testing subpath only (a test that needs wall-clock time). */
  now: () => number;
  /**
   * The database's clock, which partition maintenance decides by (issue 30). Mutable for the
   * testing subpath only: a test that moves time with its injected `now` moves this one with it.
   */
  dbNow: (q: Queryable) => Promise<number>;
}

/** The context of an engine with these options (defaults applied). */
export function createContext(options: WebhooksOptions): WebhooksContext {
  const schema = options.schema ?? 'surety';
  const channel = notifyChannel(schema);
  return {
    sql: options.sql,
    st: statements(schema),
    schema,
    apiVersion: options.apiVersion ?? '2026-11-01',
    allowHttp: options.allowHttp ?? false,
    allowList: options.allowList ?? [],
    maxEndpointsPerTenant: options.maxEndpointsPerTenant ?? 10_000,
    validate: options.validate,
    channel,
    wake: new CommitNotifier(options.sql, channel).wake,
    now: options.now ?? Date.now,
    dbNow: databaseNow,
  };
}

/** The engine's clock as an ISO timestamp, as the write statements take it. */
export const nowIso = (ctx: WebhooksContext): string => new Date(ctx.now()).toISOString();
