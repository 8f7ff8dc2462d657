import type { Dispatcher } from 'undici';
import type { Body } from './body.js';
import type { RetryBudget, RetryBudgetOptions } from './budget.js';
import type { CircuitBreaker, CircuitBreakerOptions } from './circuit-breaker.js';
import type { Clock } from './clock.js';
import type { GiveUpEvent, RetryEvent } from './events.js';

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
/** Options of `createFetch`. Every one has a default; `createFetch()` is ready to use. */
export interface FetchOptions {
  /** The most attempts per call, the first included. @default 4 */
  maxAttempts?: number;
  /** The total deadline of a call in milliseconds: all attempts and all waits. @default 30000 */
  deadlineMs?: number;
  /**
   * The longest one attempt may wait for response headers, in milliseconds. Reading the body afterwards is
   * bounded by the dispatcher's `bodyTimeout` instead (and by the caller's signal). With the client's own
   * Agent, and while the deadline is far enough away, undici enforces it (its `headersTimeout`, on timers
   * of ~0.5–1 s resolution, after a connect bounded by `connectTimeoutMs`); otherwise a timer of the
   * client's clock does, to the millisecond. The total `deadlineMs` is always exact.
   * @default 10000
   */
  attemptTimeoutMs?: number;
  /** The TCP/TLS connect timeout of the client's own Agent, in milliseconds (not used with `dispatcher`). @default 5000 */
  connectTimeoutMs?: number;
  /** Full-jitter backoff base in milliseconds: the first retry waits `random(0, baseDelayMs)`. @default 200 */
  baseDelayMs?: number;
  /** Full-jitter backoff cap on any one wait, in milliseconds (a Retry-After may ask for longer). @default 5000 */
  maxDelayMs?: number;
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
