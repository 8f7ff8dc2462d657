// An engine's internals, reached through a module-internal accessor (docs/decisions.md, issue 16).
import type { Queryable, Sql } from '@surety/db';
import type { Statements } from './sql/index.js';
import type { Webhooks } from './webhooks.js';

/**
 * What the package's own modules (the worker, the queries, the testing subpath) use of an engine:
 * its connection, statements, clock and NOTIFY channel. Not exported from the package root.
 */
export interface WebhooksInternals {
  sql: Sql;
  st: Statements;
  /** Mutable for the testing subpath only (a test that needs wall-clock time). */
  now: () => number;
  /**
   * The database's clock, which partition maintenance decides by (issue 30). Mutable for the
   * testing subpath only: a test that moves time with its injected `now` moves this one with it.
   */
  dbNow: (q: Queryable) => Promise<number>;
  channel: string;
}

const internals = new WeakMap<Webhooks, WebhooksInternals>();

/** The engine's internals (module-internal accessor; see WebhooksInternals). */
export const internalsOf = (w: Webhooks): WebhooksInternals => internals.get(w)!;

/** Registers an engine's internals (its constructor does, once). */
export const setInternals = (w: Webhooks, i: WebhooksInternals): void => {
  internals.set(w, i);
};

/** The engine's clock as an ISO timestamp, as the write statements take it. */
export const nowIso = (w: Webhooks): string => new Date(internalsOf(w).now()).toISOString();
