import { parseRetryAfter } from '@surety/core';
import { fullJitter } from './backoff.js';
import type { Call } from './call.js';
import type { Settings } from './client-settings.js';
import { retryChannel } from './diagnostics.js';
import type { RetryEvent } from './events.js';
import { report } from './give-up.js';
import { errorType } from './tracing.js';

/** The wait before the next attempt, and the Retry-After that set its floor. */
export interface Wait {
  delayMs: number;
  retryAfterMs: number | undefined;
}

/**
 * After a retryable failure of attempt `attempt` (its `response`, or the `error` it threw): the wait before
 * the next attempt, or, when any check says no, the failure handed back as it is (`report` returns the
 * response or throws the error, telling `onGiveUp` and the channel first).
 */
export function nextWait(
  s: Settings,
  c: Call,
  attempt: number,
  response: Response | undefined,
  error: unknown,
): Wait | Response {
  const { giveUp, url, verb } = c;
  if (!c.methodRetryable) return report(giveUp, url, verb, attempt, 'method', response, error);
  if (!c.prepared.replayable) return report(giveUp, url, verb, attempt, 'body', response, error);
  if (attempt >= c.maxAttempts) return report(giveUp, url, verb, attempt, 'max-attempts', response, error);
  if (c.breaker !== undefined && c.breaker.state === 'open') {
    return report(giveUp, url, verb, attempt, 'circuit-open', response, error);
  }
  let delayMs = fullJitter(attempt - 1, { ...s.backoff, random: s.random });
  let retryAfterMs: number | undefined;
  if (response !== undefined) {
    retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), s.wallClock());
    if (retryAfterMs !== undefined) {
      if (s.clock.now() + retryAfterMs >= c.deadlineAt) {
        return report(giveUp, url, verb, attempt, 'retry-after', response, error);
      }
      delayMs = Math.max(delayMs, retryAfterMs);
    }
  }
  // Never sleep past the deadline: waking up with no time left to send anything helps nobody.
  if (s.clock.now() + delayMs >= c.deadlineAt)
    return report(giveUp, url, verb, attempt, 'deadline', response, error);
  if (c.budget !== undefined && !c.budget.tryWithdraw()) {
    return report(giveUp, url, verb, attempt, 'budget', response, error);
  }
  return { delayMs, retryAfterMs };
}

/** Tells the span, `onRetry` and the retry channel that attempt `attempt` is retried after `wait`. */
export function announceRetry(
  s: Settings,
  c: Call,
  attempt: number,
  wait: Wait,
  response: Response | undefined,
  error: unknown,
): void {
  const { delayMs, retryAfterMs } = wait;
  c.trace?.retrying({
    reason: response !== undefined ? String(response.status) : errorType(error),
    delayMs,
    retryAfterMs,
    budgetTokens: c.budget?.tokens,
  });
  if (s.onRetry === undefined && !retryChannel.hasSubscribers) return;
  const event: RetryEvent = { url: c.url, method: c.verb, attempt, delayMs };
  if (response !== undefined) event.status = response.status;
  else event.error = error;
  if (retryAfterMs !== undefined) event.retryAfterMs = retryAfterMs;
  if (c.key !== undefined) event.idempotencyKey = c.key;
  s.onRetry?.(event);
  if (retryChannel.hasSubscribers) retryChannel.publish(event);
}
