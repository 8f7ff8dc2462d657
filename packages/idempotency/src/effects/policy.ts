import { fullJitter, type RetryBudget } from '@surety/fetch';
import { isEffectFailedError, isEffectRetryLaterError } from '../errors.js';

// The client policy of @surety/fetch (docs/client.md), applied to an effect's attempts: full-jitter
// backoff, Retry-After honoured and never run earlier, a total deadline (an attempt never starts
// after it, and a Retry-After past it gives up at once), an optional cap on attempts, and a retry
// budget. The pieces are @surety/fetch's own (`fullJitter`, `RetryBudget`); only the decision
// differs: a queue has no caller to hand a failure back to, so an empty budget defers the retry to
// the backoff's cap instead of failing it (a storm of failing effects still retries at most
// ~`ratio` extra per effect run, plus the floor, until the provider recovers).

/** The retry settings of an effect (per effect, over the outbox's defaults). */
export interface EffectRetryOptions {
  /** From enqueue to the last attempt's start: none starts after it. @default 86400000 (24 h) */
  deadlineMs?: number;
  /** Attempts in all (the first included). @default Infinity (the deadline decides) */
  maxAttempts?: number;
  /** The backoff's base: the first retry waits up to this long. @default 1000 */
  baseDelayMs?: number;
  /** The cap on one backoff wait. @default 300000 (5 min) */
  maxDelayMs?: number;
}

export const EFFECT_RETRY_DEFAULTS: Required<EffectRetryOptions> = {
  deadlineMs: 86_400_000,
  maxAttempts: Number.POSITIVE_INFINITY,
  baseDelayMs: 1_000,
  maxDelayMs: 300_000,
};

/** What to do after a failed attempt. */
export type RetryDecision =
  | { kind: 'retry'; atMs: number; delayMs: number; deferredByBudget: boolean }
  | { kind: 'fail'; reason: 'permanent' | 'attempts_exhausted' | 'deadline_exceeded' };

export interface RetryInput {
  error: unknown;
  /** Attempts made so far, the failed one included (1 after the first). */
  attempts: number;
  nowMs: number;
  deadlineMs: number;
  policy: Required<EffectRetryOptions>;
  random: () => number;
  budget: RetryBudget | undefined;
}

/**
 * The decision after a failed attempt, a pure function of its input (exact in tests).
 * @example
 * decideRetry({ error, attempts: 1, nowMs, deadlineMs, policy, random: () => 0.5, budget: undefined });
 * // { kind: 'retry', atMs: nowMs + 500, delayMs: 500, deferredByBudget: false } with the defaults
 */
export function decideRetry(input: RetryInput): RetryDecision {
  const { error, attempts, nowMs, deadlineMs, policy } = input;
  if (isEffectFailedError(error)) return { kind: 'fail', reason: 'permanent' };
  if (attempts >= policy.maxAttempts) return { kind: 'fail', reason: 'attempts_exhausted' };
  let delayMs = fullJitter(attempts - 1, {
    baseDelayMs: policy.baseDelayMs,
    maxDelayMs: policy.maxDelayMs,
    random: input.random,
  });
  // Never earlier than the other side asked; a wait past the deadline is a give-up now (as the client).
  if (isEffectRetryLaterError(error)) delayMs = Math.max(delayMs, error.retryAfterMs);
  if (nowMs + delayMs >= deadlineMs) return { kind: 'fail', reason: 'deadline_exceeded' };
  let deferredByBudget = false;
  if (input.budget && !input.budget.tryWithdraw()) {
    delayMs = Math.max(delayMs, policy.maxDelayMs);
    deferredByBudget = true;
    if (nowMs + delayMs >= deadlineMs) return { kind: 'fail', reason: 'deadline_exceeded' };
  }
  return { kind: 'retry', atMs: nowMs + delayMs, delayMs, deferredByBudget };
}

/** The last error as stored: its code or name and message, short, one line. */
export function describeError(error: unknown): string {
  // NUL cannot be stored in a text column; other controls would break a log line.
  const line = (text: string) => text.replace(/[\u0000-\u001f]+/g, ' ').slice(0, 500);
  if (isEffectFailedError(error)) return line(error.reason);
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | null;
  const head = typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'Error';
  const message = typeof e?.message === 'string' ? e.message : String(error);
  return line(`${head}: ${message}`);
}
