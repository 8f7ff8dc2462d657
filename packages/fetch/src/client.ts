import { parseRetryAfter } from '@surety/core';
import { Agent, fetch as undiciFetch } from 'undici';
import { forwardAbort, keepAlive, unforward } from './abort-forwarding.js';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS, fullJitter } from './backoff.js';
import { prepareBody } from './body.js';
import { sleep, systemClock } from './clock.js';
import { attemptChannel, retryChannel } from './diagnostics.js';
import { discard } from './discard-body.js';
import { AttemptTimeoutError, CircuitOpenError, DeadlineExceededError } from './errors.js';
import type { RetryEvent } from './events.js';
import { report } from './give-up.js';
import { findHeader, lower } from './header-pairs.js';
import { ATTEMPT_HEADER, DEADLINE_HEADER } from './headers.js';
import { resolveIdempotencyKey } from './idempotency-key.js';
import { readInput } from './input.js';
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ATTEMPTS,
  type FetchInput,
  type FetchOptions,
  type SuretyFetch,
  type SuretyRequestInit,
  type Transport,
  type TransportInit,
} from './options.js';
import { createPerOrigin, originOf } from './per-origin.js';
import {
  DEFAULT_RETRY_METHODS,
  DEFAULT_RETRY_STATUSES,
  isOriginFailure,
  isRetryableError,
} from './policy.js';
import { CallTrace, errorType, sdkRegistered } from './tracing.js';

// undici runs headersTimeout on its coarse "fast timers" (500 ms ticks, so up to ~1 s late): an attempt
// it bounds must leave at least this much room before the deadline, which stays exact.
const UNDICI_TIMER_SLACK = 1000;

function causeCode(error: unknown): unknown {
  return ((error as { cause?: { code?: unknown } } | null)?.cause as { code?: unknown } | undefined)?.code;
}

/** What the call's wrapper needs back from the loop to end its span. */
interface Held {
  trace: CallTrace | undefined;
}

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
  const maxAttemptsDefault = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  // The unit-named options win; the old names stay as deprecated aliases (same values, in ms).
  const deadlineDefault = options.deadlineMs ?? options.deadline ?? DEFAULT_DEADLINE_MS;
  const attemptTimeout = options.attemptTimeoutMs ?? options.attemptTimeout ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const backoff = {
    baseDelayMs: options.baseDelayMs ?? options.baseDelay ?? DEFAULT_BASE_DELAY_MS,
    maxDelayMs: options.maxDelayMs ?? options.maxDelay ?? DEFAULT_MAX_DELAY_MS,
  };
  const retryMethods = new Set((options.retryMethods ?? DEFAULT_RETRY_METHODS).map((m) => m.toUpperCase()));
  const retryStatuses = new Set(options.retryStatuses ?? DEFAULT_RETRY_STATUSES);
  const keyDefault = options.idempotencyKey ?? false;
  // Lower-cased once here: undici stores header names lower-cased, and a name that already is saves it work
  // on every request (HTTP field names are case-insensitive, RFC 9110 §5.1).
  const deadlineHeader = lower(options.deadlineHeader ?? DEADLINE_HEADER);
  const attemptHeader = lower(options.attemptHeader ?? ATTEMPT_HEADER);
  const clock = options.clock ?? systemClock;
  const wallClock = options.wallClock ?? Date.now;
  const random = options.random ?? Math.random;
  const { onRetry, onGiveUp } = options;
  const ownDispatcher = options.dispatcher === undefined;
  const connectTimeout = options.connectTimeoutMs ?? options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS;
  // The client's own Agent enforces the attempt timeout itself (headersTimeout), which lets most attempts
  // go out without an AbortSignal of ours: undici's fetch spends ~10 µs of CPU per request on a signal
  // (listeners, setMaxListeners, a FinalizationRegistry entry), measured in bench/client.
  const dispatcher =
    options.dispatcher ?? new Agent({ connect: { timeout: connectTimeout }, headersTimeout: attemptTimeout });
  const transport: Transport =
    options.transport ?? (undiciFetch as unknown as (url: string, init: TransportInit) => Promise<Response>);
  const agentTimesAttempts = options.dispatcher === undefined && options.transport === undefined;

  const { budgetFor, breakerFor, needsOrigin } = createPerOrigin(options, clock);

  // The call's spans (tracing.ts) wrap the loop: `held.trace` is set once the call's method and URL are known.
  const suretyFetch = async (input: FetchInput, init?: SuretyRequestInit): Promise<Response> => {
    if (!sdkRegistered()) return call(input, init, undefined);
    const held: Held = { trace: undefined };
    try {
      const response = await call(input, init, held);
      held.trace?.end(response);
      return response;
    } catch (error) {
      held.trace?.end(undefined, error);
      throw error;
    }
  };

  const call = async (
    input: FetchInput,
    init: SuretyRequestInit | undefined,
    held: Held | undefined,
  ): Promise<Response> => {
    const started = clock.now();
    let read = readInput(input, init);
    if (read instanceof Promise) read = await read;
    const { url, pairs, method, signal, body } = read;
    const verb = method === undefined ? 'GET' : method.toUpperCase();
    const deadlineMs = init?.deadlineMs ?? init?.deadline ?? deadlineDefault;
    const deadlineAt = started + deadlineMs;
    const maxAttempts = init?.maxAttempts ?? maxAttemptsDefault;

    const key = resolveIdempotencyKey(pairs, {
      setting: init?.idempotencyKey ?? keyDefault,
      retryMethods,
      verb,
    });
    const methodRetryable = key !== undefined || retryMethods.has(verb);
    const t = held === undefined ? undefined : new CallTrace(verb, url, key);
    if (held !== undefined) held.trace = t;
    const giveUp = t === undefined ? onGiveUp : t.giveUpHook(onGiveUp);

    let prepared = prepareBody(body, init?.bodyFactory, methodRetryable && maxAttempts > 1);
    if (prepared instanceof Promise) prepared = await prepared;
    if (prepared.contentType !== undefined && findHeader(pairs, 'content-type') === undefined) {
      pairs.push(['content-type', prepared.contentType]);
    }

    const origin = needsOrigin ? originOf(url) : '';
    const budget = budgetFor(origin);
    const breaker = breakerFor(origin);
    budget?.deposit();

    // The init of every attempt: the caller's, less this package's own fields (which `delete` would also
    // do, at the price of turning the object into a slow dictionary-mode one).
    const {
      idempotencyKey: _key,
      deadline: _deadline,
      deadlineMs: _deadlineMs,
      maxAttempts: _maxAttempts,
      bodyFactory: _bodyFactory,
      ...rest
    } = init ?? {};
    const base = rest as TransportInit;
    base.dispatcher = init?.dispatcher ?? dispatcher;
    if (method !== undefined) base.method = method;

    let lastError: unknown;

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw signal.reason;
      const remaining = deadlineAt - clock.now();
      if (remaining <= 0) throw new DeadlineExceededError(deadlineMs, { cause: lastError });
      if (breaker !== undefined && !breaker.tryAcquire()) {
        // Opened (or went half-open with its probes taken) by other calls while this one waited.
        const refused = new CircuitOpenError(origin, breaker.retryAfterMs);
        if (attempt === 1) throw refused;
        return report(giveUp, url, verb, attempt - 1, 'circuit-open', undefined, refused);
      }

      // One attempt: bounded by the attempt timeout or the deadline, whichever comes first, and by the
      // caller's signal. When the client's own Agent bounds it (connect timeout + headersTimeout) and the
      // deadline cannot fall inside it, the caller's signal goes to undici as it is. Otherwise a timer and
      // a controller of our own do it, the caller's signal forwarded into the controller.
      const deadlineBound = remaining <= attemptTimeout;
      const timeoutMs = deadlineBound ? remaining : attemptTimeout;
      const agentBound =
        agentTimesAttempts &&
        base.dispatcher === dispatcher &&
        prepared.factory === undefined &&
        prepared.replayable &&
        remaining > attemptTimeout + connectTimeout + UNDICI_TIMER_SLACK;
      let controller: AbortController | undefined;
      let timer: unknown;
      let onAbort: (() => void) | undefined;
      if (!agentBound) {
        const own = new AbortController();
        controller = own;
        timer = clock.setTimeout(() => {
          own.abort(
            deadlineBound
              ? new DeadlineExceededError(deadlineMs, { cause: lastError })
              : new AttemptTimeoutError(attemptTimeout),
          );
        }, timeoutMs);
        if (signal !== null) onAbort = forwardAbort(signal, own);
      }
      const headers = pairs.slice();
      if (attemptHeader !== false) headers.push([attemptHeader, String(attempt)]);
      if (deadlineHeader !== false) headers.push([deadlineHeader, String(Math.floor(timeoutMs))]);
      if (attemptChannel.hasSubscribers) attemptChannel.publish({ url, method: verb, attempt, timeoutMs });

      let response: Response | undefined;
      let error: unknown;
      try {
        // `base` is this call's own copy of the init: set per attempt rather than copied again.
        base.headers = headers;
        base.body = (
          prepared.factory === undefined ? prepared.body : prepared.factory()
        ) as RequestInit['body'];
        base.signal = controller === undefined ? signal : controller.signal;
        response = await (t === undefined
          ? transport(url, base)
          : t.attempt(attempt, headers, breaker?.state, () => transport(url, base)));
      } catch (caught) {
        error = caught;
        if (agentBound && causeCode(caught) === 'UND_ERR_HEADERS_TIMEOUT') {
          error = new AttemptTimeoutError(attemptTimeout, { cause: caught });
        }
      } finally {
        if (controller !== undefined) clock.clearTimeout(timer);
      }
      t?.attemptEnded(response, error);

      if (response === undefined) {
        if (onAbort !== undefined) unforward(signal!, onAbort);
        if (signal?.aborted) {
          breaker?.record('ignore');
          throw signal.reason;
        }
        breaker?.record(isOriginFailure(error) ? 'failure' : 'success');
        if (error instanceof DeadlineExceededError)
          return report(giveUp, url, verb, attempt, 'deadline', undefined, error);
        if (!isRetryableError(error)) throw error;
        lastError = error;
      } else {
        breaker?.record(isOriginFailure(response.status) ? 'failure' : 'success');
        // The caller's signal stays attached to a returned response, so aborting still stops its body.
        if (controller !== undefined && onAbort !== undefined) keepAlive.set(response, controller);
        // 409 + Retry-After on a keyed request is an idempotency layer saying "the original with this
        // key is still in flight, come back": retrying with the same key is what it asks for.
        const inFlight = response.status === 409 && key !== undefined && response.headers.has('retry-after');
        if (!retryStatuses.has(response.status) && !inFlight) return response;
      }

      // A retryable failure. Every check below that says no returns it as it is.
      if (!methodRetryable) return report(giveUp, url, verb, attempt, 'method', response, error);
      if (!prepared.replayable) return report(giveUp, url, verb, attempt, 'body', response, error);
      if (attempt >= maxAttempts) return report(giveUp, url, verb, attempt, 'max-attempts', response, error);
      if (breaker !== undefined && breaker.state === 'open') {
        return report(giveUp, url, verb, attempt, 'circuit-open', response, error);
      }
      let delayMs = fullJitter(attempt - 1, { ...backoff, random });
      let retryAfterMs: number | undefined;
      if (response !== undefined) {
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), wallClock());
        if (retryAfterMs !== undefined) {
          if (clock.now() + retryAfterMs >= deadlineAt)
            return report(giveUp, url, verb, attempt, 'retry-after', response, error);
          delayMs = Math.max(delayMs, retryAfterMs);
        }
      }
      // Never sleep past the deadline: waking up with no time left to send anything helps nobody.
      if (clock.now() + delayMs >= deadlineAt)
        return report(giveUp, url, verb, attempt, 'deadline', response, error);
      if (budget !== undefined && !budget.tryWithdraw())
        return report(giveUp, url, verb, attempt, 'budget', response, error);

      t?.retrying({
        reason: response !== undefined ? String(response.status) : errorType(error),
        delayMs,
        retryAfterMs,
        budgetTokens: budget?.tokens,
      });
      if (onRetry !== undefined || retryChannel.hasSubscribers) {
        const event: RetryEvent = { url, method: verb, attempt, delayMs };
        if (response !== undefined) event.status = response.status;
        else event.error = error;
        if (retryAfterMs !== undefined) event.retryAfterMs = retryAfterMs;
        if (key !== undefined) event.idempotencyKey = key;
        onRetry?.(event);
        if (retryChannel.hasSubscribers) retryChannel.publish(event);
      }
      if (response !== undefined) {
        if (onAbort !== undefined) unforward(signal!, onAbort);
        await discard(response);
      }
      await sleep(clock, delayMs, { signal });
    }
  };

  return Object.assign(suretyFetch, {
    budgetFor: (origin: string) => budgetFor(origin),
    breakerFor: (origin: string) => breakerFor(origin),
    dispatcher,
    close: async () => {
      if (ownDispatcher) await dispatcher.close();
    },
  });
}
