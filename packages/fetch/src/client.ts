import { randomUUID } from 'node:crypto';
import { defaultMaxListeners, getMaxListeners, setMaxListeners } from 'node:events';
import { Agent, type Dispatcher, fetch as undiciFetch } from 'undici';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS, fullJitter } from './backoff.js';
import { type Body, prepareBody } from './body.js';
import { RetryBudget, type RetryBudgetOptions } from './budget.js';
import { CircuitBreaker, type CircuitBreakerOptions } from './circuit-breaker.js';
import { type Clock, sleep, systemClock } from './clock.js';
import { attemptChannel, circuitChannel, giveUpChannel, retryChannel } from './diagnostics.js';
import { AttemptTimeoutError, CircuitOpenError, DeadlineExceededError } from './errors.js';
import { ATTEMPT_HEADER, DEADLINE_HEADER, IDEMPOTENCY_KEY_HEADER } from './headers.js';
import {
  DEFAULT_RETRY_METHODS,
  DEFAULT_RETRY_STATUSES,
  isOriginFailure,
  isRetryableError,
} from './policy.js';
import { parseRetryAfter } from './retry-after.js';

/** What a `SuretyFetch` accepts as its first argument: the same as `fetch`. */
export type FetchInput = string | URL | Request;

/** The init object handed to the transport for one attempt: `RequestInit` plus undici's dispatcher. */
export type TransportInit = RequestInit & { dispatcher?: Dispatcher; duplex?: 'half' };

/** The function that sends one attempt. */
export type Transport = (url: string, init: TransportInit) => Promise<Response>;

/** `RequestInit`, plus per-call overrides of the client's policy. */
// `dispatcher` is undici's own type, not the one of the global RequestInit (@types/node's undici-types):
// the two versions differ, and extending both failed a consumer's type-check (TS2430, skipLibCheck false).
export interface SuretyRequestInit extends Omit<RequestInit, 'body' | 'dispatcher'> {
  /** The body, as for `fetch`; async iterables are accepted too (send them with `duplex: "half"`). */
  body?: Body | null;
  /**
   * `"auto"`: send a new UUID v4 as `Idempotency-Key`, reused on every attempt of this call; a string:
   * send that key; `false`: send none. A key already in `headers` is never replaced.
   * @default the client's `idempotencyKey`
   */
  idempotencyKey?: 'auto' | false | (string & {});
  /** The total deadline of this call in milliseconds, attempts and waits included. @default the client's */
  deadlineMs?: number;
  /** @deprecated use `deadlineMs` (the same value; the unit is now in the name). */
  deadline?: number;
  /** The most attempts for this call, the first included. @default the client's */
  maxAttempts?: number;
  /**
   * Makes a stream body retryable: called for every attempt (the first included) to produce the body,
   * and `body` is ignored. Without it, a call with a stream body is sent once and never retried.
   */
  bodyFactory?: () => Body;
  /** An undici dispatcher for this call. @default the client's */
  dispatcher?: Dispatcher;
  /** Needed by undici for stream bodies. */
  duplex?: 'half';
}

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

/** Options of `createFetch`. Every one has a default; `createFetch()` is ready to use. */
export interface FetchOptions {
  /** The most attempts per call, the first included. @default 4 */
  maxAttempts?: number;
  /** The total deadline of a call in milliseconds: all attempts and all waits. @default 30000 */
  deadlineMs?: number;
  /** @deprecated use `deadlineMs` (the same value; the unit is now in the name). */
  deadline?: number;
  /**
   * The longest one attempt may wait for response headers, in milliseconds. Reading the body afterwards is
   * bounded by the dispatcher's `bodyTimeout` instead (and by the caller's signal). With the client's own
   * Agent, and while the deadline is far enough away, undici enforces it (its `headersTimeout`, on timers
   * of ~0.5–1 s resolution, after a connect bounded by `connectTimeoutMs`); otherwise a timer of the
   * client's clock does, to the millisecond. The total `deadlineMs` is always exact.
   * @default 10000
   */
  attemptTimeoutMs?: number;
  /** @deprecated use `attemptTimeoutMs` (the same value; the unit is now in the name). */
  attemptTimeout?: number;
  /** The TCP/TLS connect timeout of the client's own Agent, in milliseconds (not used with `dispatcher`). @default 5000 */
  connectTimeoutMs?: number;
  /** @deprecated use `connectTimeoutMs` (the same value; the unit is now in the name). */
  connectTimeout?: number;
  /** Full-jitter backoff base in milliseconds: the first retry waits `random(0, baseDelayMs)`. @default 200 */
  baseDelayMs?: number;
  /** @deprecated use `baseDelayMs` (the same value; the unit is now in the name). */
  baseDelay?: number;
  /** Full-jitter backoff cap on any one wait, in milliseconds (a Retry-After may ask for longer). @default 5000 */
  maxDelayMs?: number;
  /** @deprecated use `maxDelayMs` (the same value; the unit is now in the name). */
  maxDelay?: number;
  /** Methods retried without an Idempotency-Key. @default ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"] */
  retryMethods?: readonly string[];
  /** Response statuses that are retried. @default [408, 429, 502, 503, 504] */
  retryStatuses?: readonly number[];
  /**
   * `"auto"`: every call whose method is not in `retryMethods` (POST, PATCH…) gets a new UUID v4
   * `Idempotency-Key`, reused on all its attempts, and so becomes retryable. `false`: only keys the
   * caller sends. Overridable per call.
   * @default false
   */
  idempotencyKey?: 'auto' | false;
  /**
   * The retry budget, one per origin: options for a `RetryBudget`, a factory (to share budgets between
   * clients), or `false` to turn it off (not recommended).
   * @default { ratio: 0.1, minPerSecond: 1, maxTokens: 10 }
   */
  retryBudget?: RetryBudgetOptions | ((origin: string) => RetryBudget) | false;
  /**
   * A circuit breaker per origin: `true` or options for a `CircuitBreaker`, or a factory.
   * @default false
   */
  circuitBreaker?: boolean | CircuitBreakerOptions | ((origin: string) => CircuitBreaker);
  /** The header carrying the time left downstream; `false` to not send it. @default "Surety-Timeout-Ms" */
  deadlineHeader?: string | false;
  /** The header carrying the attempt number; `false` to not send it. @default "Surety-Attempt" */
  attemptHeader?: string | false;
  /** Called before each wait for a retry. Exceptions thrown here propagate to the caller. */
  onRetry?: (event: RetryEvent) => void;
  /** Called when a retryable failure is returned (or thrown) without being retried. */
  onGiveUp?: (event: GiveUpEvent) => void;
  /** The undici dispatcher (Agent, Pool…) to send with; the client then does not close it. @default a new Agent */
  dispatcher?: Dispatcher;
  /** The function that sends one attempt. @default undici's `fetch` */
  transport?: Transport;
  /** Time, for deadlines, timeouts, backoff and the budget floor. @default systemClock */
  clock?: Clock;
  /** The wall clock (epoch ms) that HTTP-date Retry-After values are compared to. @default Date.now */
  wallClock?: () => number;
  /** Random numbers in [0, 1) for the jitter. @default Math.random */
  random?: () => number;
}

/** A `fetch` with a retry policy, plus access to its per-origin state. */
export interface SuretyFetch {
  (input: FetchInput, init?: SuretyRequestInit): Promise<Response>;
  /** The budget of an origin (e.g. `"http://127.0.0.1:8080"`), created on first use. */
  budgetFor(origin: string): RetryBudget | undefined;
  /** The circuit breaker of an origin, when breakers are on. */
  breakerFor(origin: string): CircuitBreaker | undefined;
  /** The dispatcher attempts are sent with. */
  readonly dispatcher: Dispatcher;
  /** Closes the client's own Agent (not a dispatcher passed in). */
  close(): Promise<void>;
}

/** @default 4 */
export const DEFAULT_MAX_ATTEMPTS = 4;
/** The default total deadline of a call, in milliseconds. @default 30000 */
export const DEFAULT_DEADLINE_MS = 30_000;
/** The default per-attempt timeout, in milliseconds. @default 10000 */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
/** The default connect timeout of the client's own Agent, in milliseconds. @default 5000 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** @deprecated use `DEFAULT_DEADLINE_MS`. */
export const DEFAULT_DEADLINE = DEFAULT_DEADLINE_MS;
/** @deprecated use `DEFAULT_ATTEMPT_TIMEOUT_MS`. */
export const DEFAULT_ATTEMPT_TIMEOUT = DEFAULT_ATTEMPT_TIMEOUT_MS;
/** @deprecated use `DEFAULT_CONNECT_TIMEOUT_MS`. */
export const DEFAULT_CONNECT_TIMEOUT = DEFAULT_CONNECT_TIMEOUT_MS;

// undici runs headersTimeout on its coarse "fast timers" (500 ms ticks, so up to ~1 s late): an attempt
// it bounds must leave at least this much room before the deadline, which stays exact.
const UNDICI_TIMER_SLACK = 1000;

// Bodies of failed attempts up to this size are read to the end so the connection can be reused; larger
// (or unsized) ones are cancelled, which costs the connection but never waits on a slow body.
const DRAIN_LIMIT = 64 * 1024;

type HeaderPairs = [string, string][];

function toPairs(headers: HeadersInit | undefined | null): HeaderPairs {
  if (headers == null) return [];
  if (Array.isArray(headers)) return headers.map((pair) => [pair[0]!, pair[1]!]);
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const pairs: HeaderPairs = [];
    (headers as Headers).forEach((value, name) => {
      pairs.push([name, value]);
    });
    return pairs;
  }
  return Object.entries(headers as Record<string, string>);
}

function findHeader(pairs: HeaderPairs, lowerName: string): string | undefined {
  for (const [name, value] of pairs) if (name.toLowerCase() === lowerName) return value;
  return undefined;
}

async function discard(response: Response): Promise<void> {
  if (response.body === null) return;
  try {
    const length = Number(response.headers.get('content-length') ?? Number.NaN);
    if (length <= DRAIN_LIMIT) await response.arrayBuffer();
    else await response.body.cancel();
  } catch {
    // The body of a response we are throwing away: its errors are not the caller's.
  }
}

const forwarders = new FinalizationRegistry<{ signal: AbortSignal; listener: () => void }>(
  ({ signal, listener }) => signal.removeEventListener('abort', listener),
);
// A returned response keeps its attempt's controller alive, so the caller can still abort its body.
const keepAlive = new WeakMap<Response, AbortController>();

/**
 * Makes `signal` abort `controller`. The listener holds the controller weakly and is removed once the
 * controller is collected, so a long-lived caller signal (a shutdown signal passed to every call) does not
 * gather one listener per call for ever. It is built here, outside the request's scope, so that its closure
 * cannot share a V8 context that holds the controller strongly.
 */
function forwardAbort(signal: AbortSignal, controller: AbortController): () => void {
  const ref = new WeakRef(controller);
  const listener = () => ref.deref()?.abort(signal.reason);
  // As undici does: many concurrent calls sharing one signal are expected, not a leak.
  if (getMaxListeners(signal) === defaultMaxListeners) setMaxListeners(1500, signal);
  signal.addEventListener('abort', listener, { once: true });
  forwarders.register(controller, { signal, listener }, listener);
  return listener;
}

function unforward(signal: AbortSignal, listener: () => void): void {
  signal.removeEventListener('abort', listener);
  forwarders.unregister(listener);
}

function lower(name: string | false): string | false {
  return name === false ? false : name.toLowerCase();
}

function causeCode(error: unknown): unknown {
  return ((error as { cause?: { code?: unknown } } | null)?.cause as { code?: unknown } | undefined)?.code;
}

/** Tells `onGiveUp` and the channel, then hands the failure back: the response, or the error thrown. */
function report(
  onGiveUp: ((event: GiveUpEvent) => void) | undefined,
  url: string,
  method: string,
  attempts: number,
  reason: GiveUpReason,
  response: Response | undefined,
  error: unknown,
): Response {
  if (onGiveUp !== undefined || giveUpChannel.hasSubscribers) {
    const event: GiveUpEvent = { url, method, attempts, reason };
    if (response !== undefined) event.status = response.status;
    else event.error = error;
    onGiveUp?.(event);
    if (giveUpChannel.hasSubscribers) giveUpChannel.publish(event);
  }
  if (response !== undefined) return response;
  throw error;
}

// Origins of recently seen URLs: parsing a URL costs about a microsecond, and most clients call a few
// URLs over and over. Cleared when full, so arbitrary query strings cannot grow it without bound.
const origins = new Map<string, string>();
function originOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    origin = new URL(url).origin;
    if (origins.size >= 1024) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

function isRequest(input: FetchInput): input is Request {
  return typeof input === 'object' && !(input instanceof URL) && typeof (input as Request).url === 'string';
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

  const budgetOption = options.retryBudget ?? {};
  const budgets = new Map<string, RetryBudget>();
  const budgetFor = (origin: string): RetryBudget | undefined => {
    if (budgetOption === false) return undefined;
    let budget = budgets.get(origin);
    if (budget === undefined) {
      budget =
        typeof budgetOption === 'function'
          ? budgetOption(origin)
          : new RetryBudget({ clock, ...budgetOption });
      budgets.set(origin, budget);
    }
    return budget;
  };

  const breakerOption = options.circuitBreaker ?? false;
  const breakers = new Map<string, CircuitBreaker>();
  const breakerFor = (origin: string): CircuitBreaker | undefined => {
    if (breakerOption === false) return undefined;
    let breaker = breakers.get(origin);
    if (breaker === undefined) {
      if (typeof breakerOption === 'function') breaker = breakerOption(origin);
      else {
        const settings = breakerOption === true ? {} : breakerOption;
        const user = settings.onStateChange;
        // The diagnostics channel listens through the option, so the breaker's assignable
        // `onStateChange` property stays the caller's and nothing here is overwritten.
        breaker = new CircuitBreaker({
          clock,
          ...settings,
          onStateChange: (state, previous) => {
            user?.(state, previous);
            if (circuitChannel.hasSubscribers) circuitChannel.publish({ origin, state, previous });
          },
        });
      }
      breakers.set(origin, breaker);
    }
    return breaker;
  };

  const suretyFetch = async (input: FetchInput, init?: SuretyRequestInit): Promise<Response> => {
    const started = clock.now();
    let url: string;
    let pairs: HeaderPairs;
    let method: string | undefined = init?.method;
    let signal = init?.signal ?? null;
    let body: Body | null | undefined = init?.body;
    if (typeof input === 'string') {
      url = input;
      pairs = toPairs(init?.headers);
    } else if (input instanceof URL) {
      url = input.href;
      pairs = toPairs(init?.headers);
    } else if (isRequest(input)) {
      // A Request (the global one of Node 20 is not undici 7's): take it apart into url and init. Its body
      // is read once here so it can be replayed.
      url = input.url;
      method ??= input.method;
      pairs = toPairs(init?.headers ?? input.headers);
      signal ??= input.signal;
      if (body === undefined && input.body !== null) body = new Uint8Array(await input.arrayBuffer());
    } else {
      url = String(input);
      pairs = toPairs(init?.headers);
    }
    const verb = method === undefined ? 'GET' : method.toUpperCase();
    const deadlineMs = init?.deadlineMs ?? init?.deadline ?? deadlineDefault;
    const deadlineAt = started + deadlineMs;
    const maxAttempts = init?.maxAttempts ?? maxAttemptsDefault;

    let key = findHeader(pairs, 'idempotency-key');
    if (key === undefined) {
      const setting = init?.idempotencyKey ?? keyDefault;
      if (setting === 'auto') {
        if (!retryMethods.has(verb)) key = randomUUID();
      } else if (setting !== false) {
        key = setting;
      }
      if (key !== undefined) pairs.push([IDEMPOTENCY_KEY_HEADER, key]);
    }
    const methodRetryable = key !== undefined || retryMethods.has(verb);

    let prepared = prepareBody(body, init?.bodyFactory, methodRetryable && maxAttempts > 1);
    if (prepared instanceof Promise) prepared = await prepared;
    if (prepared.contentType !== undefined && findHeader(pairs, 'content-type') === undefined) {
      pairs.push(['content-type', prepared.contentType]);
    }

    const needsOrigin = budgetOption !== false || breakerOption !== false;
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
        return report(onGiveUp, url, verb, attempt - 1, 'circuit-open', undefined, refused);
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
        response = await transport(url, base);
      } catch (caught) {
        error = caught;
        if (agentBound && causeCode(caught) === 'UND_ERR_HEADERS_TIMEOUT') {
          error = new AttemptTimeoutError(attemptTimeout, { cause: caught });
        }
      } finally {
        if (controller !== undefined) clock.clearTimeout(timer);
      }

      if (response === undefined) {
        if (onAbort !== undefined) unforward(signal!, onAbort);
        if (signal?.aborted) {
          breaker?.record('ignore');
          throw signal.reason;
        }
        breaker?.record(isOriginFailure(error) ? 'failure' : 'success');
        if (error instanceof DeadlineExceededError)
          return report(onGiveUp, url, verb, attempt, 'deadline', undefined, error);
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
      if (!methodRetryable) return report(onGiveUp, url, verb, attempt, 'method', response, error);
      if (!prepared.replayable) return report(onGiveUp, url, verb, attempt, 'body', response, error);
      if (attempt >= maxAttempts)
        return report(onGiveUp, url, verb, attempt, 'max-attempts', response, error);
      if (breaker !== undefined && breaker.state === 'open') {
        return report(onGiveUp, url, verb, attempt, 'circuit-open', response, error);
      }
      let delayMs = fullJitter(attempt - 1, { ...backoff, random });
      let retryAfterMs: number | undefined;
      if (response !== undefined) {
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), wallClock());
        if (retryAfterMs !== undefined) {
          if (clock.now() + retryAfterMs >= deadlineAt)
            return report(onGiveUp, url, verb, attempt, 'retry-after', response, error);
          delayMs = Math.max(delayMs, retryAfterMs);
        }
      }
      // Never sleep past the deadline: waking up with no time left to send anything helps nobody.
      if (clock.now() + delayMs >= deadlineAt)
        return report(onGiveUp, url, verb, attempt, 'deadline', response, error);
      if (budget !== undefined && !budget.tryWithdraw())
        return report(onGiveUp, url, verb, attempt, 'budget', response, error);

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
