/** Why a retryable failure was returned without another attempt. */
export type GiveUpReason =
  | 'max-attempts'
  | 'deadline'
  | 'retry-after'
  | 'budget'
  | 'circuit-open'
  | 'method'
  | 'body';

/** Passed to `onRetry` and published on `surety:fetch:retry`. */
export interface RetryEvent {
  url: string;
  method: string;
  /** The attempt that failed (1-based); the next one is `attempt + 1`. */
  attempt: number;
  /** How long the client waits before the next attempt, in milliseconds. */
  delayMs: number;
  /** The status that failed, when there was a response. */
  status?: number;
  /** The error that failed, when there was no response. */
  error?: unknown;
  /** The server's Retry-After, in milliseconds, when it sent a valid one. */
  retryAfterMs?: number;
  /** The idempotency key sent with every attempt, if any. */
  idempotencyKey?: string;
}

/** Passed to `onGiveUp` and published on `surety:fetch:giveUp`. */
export interface GiveUpEvent {
  url: string;
  method: string;
  /** Attempts made. */
  attempts: number;
  reason: GiveUpReason;
  status?: number;
  error?: unknown;
}
