// The outcome writer's types (outcome-writer.ts): a completion as recorded, what happens to one the
// database cannot store, and the writer's options.
import type { Queryable, Sql, Tx } from '@surety/db';
import type { completeStatements } from '../sql/complete.js';

/** A worker's outcome for one claimed delivery, as recorded. */
export interface Completion {
  id: string;
  tenant: string;
  endpointId: string;
  /**
   * `throttled`: the receiver answered 429/503; recorded as an attempt, the delivery rescheduled
   * without spending it (adaptive throttling, docs/webhooks.md). `defer`: handed back unsent.
   */
  outcome: 'delivered' | 'retry' | 'failed' | 'throttled' | 'defer';
  nextAt: string | null;
  status: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  excerpt: string | null;
  attempt: number;
  startedAt: string;
  durationMs: number;
  gone: boolean;
  /** A throttled answer's bounded Retry-After: nothing is sent to the endpoint before it (ISO). */
  pauseUntil: string | null;
  /** The delivery's event, and its type (null when the event was deleted). */
  eventId: string;
  eventType: string | null;
}

/**
 * How an outcome that PostgreSQL could not store as it was was handled:
 * - `replaced`: text held characters PostgreSQL's UTF-8 text cannot (NUL, lone surrogates), stored
 *   with U+FFFD in their place;
 * - `text_dropped`: the row was refused even so; recorded without its excerpt and error message;
 * - `attempt_dropped`: refused without them too; the delivery recorded (failed, or delivered if it
 *   was) with `last_error = 'attempt_unrecorded'`, and no attempt row;
 * - `lost`: not even that could be written; nothing recorded, the lease brings the delivery back.
 */
export type UnstorableHandling = 'replaced' | 'text_dropped' | 'attempt_dropped' | 'lost';

/** One outcome that could not be stored as it was (event `outcome:unstorable`). */
export interface UnstorableOutcome {
  deliveryId: string;
  tenant: string;
  endpointId: string;
  attempt: number;
  handled: UnstorableHandling;
}

export interface OutcomeWriterOptions {
  sql: Queryable;
  /** The statements holding `complete` (sql/complete.ts). */
  st: ReturnType<typeof completeStatements>;
  /** Fencing identity: only rows still locked by this worker are completed. */
  workerId: string;
  now: () => number;
  /** Flush once this many outcomes wait. */
  batchSize: number;
  /** Otherwise, this long after the first one arrived. */
  flushIntervalMs: number;
  /** True while shutting down: a write that keeps failing is given up after a few tries. */
  stopping: () => boolean;
  /**
   * Deliveries failed for good (operational events, `delivery.failed`): when given, a batch that
   * fails any whose failure `counts` is written in a transaction that also runs `publish` with
   * those the statement did fail (still held by this worker).
   */
  failed?: {
    sql: Sql;
    counts: (c: Completion) => boolean;
    publish: (tx: Tx, failed: Completion[]) => Promise<void>;
  };
  /** After each recorded batch, with its attempts (endpoint health). Its failure is reported, not retried. */
  written: (batch: Completion[], now: string) => Promise<void>;
  on: {
    error(error: Error): void;
    unstorable(outcome: UnstorableOutcome): void;
    blocked(info: { buffered: number; error: Error }): void;
    resumed(info: { buffered: number; blockedMs: number }): void;
    /** A flush ended: room may have come free. */
    settled(): void;
  };
}
