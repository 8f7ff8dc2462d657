import { keepAlive, unforward } from './abort-forwarding.js';
import { type Call, type Held, openCall, sendAttempt } from './call.js';
import { clientSettings, type Settings } from './client-settings.js';
import { sleep } from './clock.js';
import { discard } from './discard-body.js';
import { CircuitOpenError, DeadlineExceededError } from './errors.js';
import { report } from './give-up.js';
import type { FetchInput, FetchOptions, SuretyFetch, SuretyRequestInit } from './options.js';
import { isOriginFailure, isRetryableError } from './policy.js';
import { announceRetry, nextWait } from './retry-step.js';
import { sdkRegistered } from './tracing.js';

/**
 * Creates a `fetch` whose retries cannot cause a retry storm or a double charge. Same signature and
 * result as `fetch` (the `Response` is undici's), built on undici's dispatcher API.
 *
 * - Retries GET, HEAD, OPTIONS, PUT, DELETE, TRACE, and any request carrying an Idempotency-Key; never a
 *   POST or PATCH without one.
 * - On network errors (refused, reset, timeouts, DNS) and 408, 429, 502, 503, 504; never other 4xx nor 501.
 * - Waits full-jitter backoff, and never less than a Retry-After; gives up at once when the Retry-After or
 *   the next wait would pass the deadline.
 * - Stops at `maxAttempts`, at the deadline, or when the origin's retry budget is empty.
 * - Sends `Surety-Attempt` and `Surety-Timeout-Ms` (the time this attempt will be waited for) upstream.
 *
 * A retryable failure that is not retried is returned as it is (the last response, or the last error
 * thrown); the caller's abort rejects with the signal's reason at once, during a wait too.
 * @example
 * const fetch = createFetch({ idempotencyKey: 'auto', deadlineMs: 10_000 });
 * const res = await fetch('https://api.example.com/v1/payments', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ amount: 100 }),
 * });
 */
export function createFetch(options: FetchOptions = {}): SuretyFetch {
  const s = clientSettings(options);

  // The call's spans (tracing.ts) wrap the loop: `held.trace` is set once the call's method and URL are known.
  const suretyFetch = async (input: FetchInput, init?: SuretyRequestInit): Promise<Response> => {
    if (!sdkRegistered()) return call(s, input, init, undefined);
    const held: Held = { trace: undefined };
    try {
      const response = await call(s, input, init, held);
      held.trace?.end(response);
      return response;
    } catch (error) {
      held.trace?.end(undefined, error);
      throw error;
    }
  };

  return Object.assign(suretyFetch, {
    budgetFor: (origin: string) => s.budgetFor(origin),
    breakerFor: (origin: string) => s.breakerFor(origin),
    dispatcher: s.dispatcher,
    close: async () => {
      if (s.ownDispatcher) await s.dispatcher.close();
    },
  });
}

/** One call: its attempts until one is returned, or a check gives up (`nextWait`), or the deadline passes. */
async function call(
  s: Settings,
  input: FetchInput,
  init: SuretyRequestInit | undefined,
  held: Held | undefined,
): Promise<Response> {
  let opened = openCall(s, input, init, held);
  if (opened instanceof Promise) opened = await opened;
  const c: Call = opened;
  const { signal, breaker } = c;
  let lastError: unknown;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw signal.reason;
    const remaining = c.deadlineAt - s.clock.now();
    if (remaining <= 0) throw new DeadlineExceededError(c.deadlineMs, { cause: lastError });
    if (breaker !== undefined && !breaker.tryAcquire()) {
      // Opened (or went half-open with its probes taken) by other calls while this one waited.
      const refused = new CircuitOpenError(c.origin, breaker.retryAfterMs);
      if (attempt === 1) throw refused;
      return report(c.giveUp, c.url, c.verb, attempt - 1, 'circuit-open', undefined, refused);
    }

    const { response, error, controller, onAbort } = await sendAttempt(s, c, attempt, remaining, lastError);
    if (response === undefined) {
      if (onAbort !== undefined) unforward(signal!, onAbort);
      if (signal?.aborted) {
        breaker?.record('ignore');
        throw signal.reason;
      }
      breaker?.record(isOriginFailure(error) ? 'failure' : 'success');
      if (error instanceof DeadlineExceededError) {
        return report(c.giveUp, c.url, c.verb, attempt, 'deadline', undefined, error);
      }
      if (!isRetryableError(error)) throw error;
      lastError = error;
    } else {
      breaker?.record(isOriginFailure(response.status) ? 'failure' : 'success');
      // The caller's signal stays attached to a returned response, so aborting still stops its body.
      if (controller !== undefined && onAbort !== undefined) keepAlive.set(response, controller);
      // 409 + Retry-After on a keyed request is an idempotency layer saying "the original with this
      // key is still in flight, come back": retrying with the same key is what it asks for.
      const inFlight = response.status === 409 && c.key !== undefined && response.headers.has('retry-after');
      if (!s.retryStatuses.has(response.status) && !inFlight) return response;
    }

    // A retryable failure: retried after a wait, unless a check says no (the failure returned as it is).
    const wait = nextWait(s, c, attempt, response, error);
    if (!('delayMs' in wait)) return wait; // given up: the failure as it is
    announceRetry(s, c, attempt, wait, response, error);
    if (response !== undefined) {
      if (onAbort !== undefined) unforward(signal!, onAbort);
      await discard(response);
    }
    await sleep(s.clock, wait.delayMs, { signal });
  }
}
