import { forwardAbort } from './abort-forwarding.js';
import { type PreparedBody, prepareBody } from './body.js';
import type { RetryBudget } from './budget.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { Settings } from './client-settings.js';
import { attemptChannel } from './diagnostics.js';
import { AttemptTimeoutError, DeadlineExceededError } from './errors.js';
import type { GiveUpEvent } from './events.js';
import { findHeader, type HeaderPairs } from './header-pairs.js';
import { resolveIdempotencyKey } from './idempotency-key.js';
import { type ReadInput, readInput } from './input.js';
import type { FetchInput, SuretyRequestInit, TransportInit } from './options.js';
import { originOf } from './per-origin.js';
import { CallTrace } from './tracing.js';

// undici runs headersTimeout on its coarse "fast timers" (500 ms ticks, so up to ~1 s late): an attempt
// it bounds must leave at least this much room before the deadline, which stays exact.
const UNDICI_TIMER_SLACK = 1000;

/** What the call's wrapper needs back from the loop to end its span. */
export interface Held {
  trace: CallTrace | undefined;
}

/** One call, worked out before its first attempt: what every attempt sends and the limits it runs under. */
export interface Call {
  url: string;
  /** The method as given (undefined: GET, sent as undici's default). */
  method: string | undefined;
  /** The method upper-cased, for the policy and the events. */
  verb: string;
  signal: AbortSignal | null;
  pairs: HeaderPairs;
  deadlineMs: number;
  deadlineAt: number;
  maxAttempts: number;
  key: string | undefined;
  /** Whether the method (or its key) allows a retry at all. */
  methodRetryable: boolean;
  trace: CallTrace | undefined;
  giveUp: ((event: GiveUpEvent) => void) | undefined;
  prepared: PreparedBody;
  origin: string;
  budget: RetryBudget | undefined;
  breaker: CircuitBreaker | undefined;
  /** The init of every attempt: the caller's, less this package's own fields. */
  base: TransportInit;
}

/** An attempt's outcome: a response or what it threw, and the abort wiring to undo. */
export interface Sent {
  response: Response | undefined;
  error: unknown;
  controller: AbortController | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * The call of `fetch(input, init)` on a client of settings `s`: a promise only when the input or the body
 * must be read first (a `Request` with a body, an async iterable), so the common call awaits nothing.
 */
export function openCall(
  s: Settings,
  input: FetchInput,
  init: SuretyRequestInit | undefined,
  held: Held | undefined,
): Call | Promise<Call> {
  const started = s.clock.now();
  const read = readInput(input, init);
  return read instanceof Promise
    ? read.then((r) => withBody(s, r, init, held, started))
    : withBody(s, read, init, held, started);
}

function withBody(
  s: Settings,
  read: ReadInput,
  init: SuretyRequestInit | undefined,
  held: Held | undefined,
  started: number,
): Call | Promise<Call> {
  const { url, pairs, method, signal, body } = read;
  const verb = method === undefined ? 'GET' : method.toUpperCase();
  const deadlineMs = init?.deadlineMs ?? s.deadlineMs;
  const maxAttempts = init?.maxAttempts ?? s.maxAttempts;
  const key = resolveIdempotencyKey(pairs, {
    setting: init?.idempotencyKey ?? s.idempotencyKey,
    retryMethods: s.retryMethods,
    verb,
  });
  const methodRetryable = key !== undefined || s.retryMethods.has(verb);
  const trace = held === undefined ? undefined : new CallTrace(verb, url, key);
  if (held !== undefined) held.trace = trace;
  const giveUp = trace === undefined ? s.onGiveUp : trace.giveUpHook(s.onGiveUp);

  const complete = (prepared: PreparedBody): Call => {
    if (prepared.contentType !== undefined && findHeader(pairs, 'content-type') === undefined) {
      pairs.push(['content-type', prepared.contentType]);
    }
    const origin = s.needsOrigin ? originOf(url) : '';
    const budget = s.budgetFor(origin);
    budget?.deposit();
    // The caller's init less this package's own fields (which `delete` would also do, at the price of
    // turning the object into a slow dictionary-mode one).
    const {
      idempotencyKey: _key,
      deadlineMs: _deadlineMs,
      maxAttempts: _maxAttempts,
      bodyFactory: _bodyFactory,
      ...rest
    } = init ?? {};
    const base = rest as TransportInit;
    base.dispatcher = init?.dispatcher ?? s.dispatcher;
    if (method !== undefined) base.method = method;
    return {
      url,
      method,
      verb,
      signal,
      pairs,
      deadlineMs,
      deadlineAt: started + deadlineMs,
      maxAttempts,
      key,
      methodRetryable,
      trace,
      giveUp,
      prepared,
      origin,
      budget,
      breaker: s.breakerFor(origin),
      base,
    };
  };
  const prepared = prepareBody(body, init?.bodyFactory, methodRetryable && maxAttempts > 1);
  return prepared instanceof Promise ? prepared.then(complete) : complete(prepared);
}

function causeCode(error: unknown): unknown {
  return ((error as { cause?: { code?: unknown } } | null)?.cause as { code?: unknown } | undefined)?.code;
}

/**
 * Sends attempt `attempt` of call `c` with `remaining` ms left before its deadline: bounded by the attempt
 * timeout or the deadline, whichever comes first, and by the caller's signal. When the client's own Agent
 * bounds it (connect timeout + headersTimeout) and the deadline cannot fall inside it, the caller's signal
 * goes to undici as it is. Otherwise a timer and a controller of our own do it, the caller's signal
 * forwarded into the controller.
 */
export async function sendAttempt(
  s: Settings,
  c: Call,
  attempt: number,
  remaining: number,
  lastError: unknown,
): Promise<Sent> {
  const { clock, attemptTimeoutMs } = s;
  const { base, signal, prepared } = c;
  const deadlineBound = remaining <= attemptTimeoutMs;
  const timeoutMs = deadlineBound ? remaining : attemptTimeoutMs;
  const agentBound =
    s.agentTimesAttempts &&
    base.dispatcher === s.dispatcher &&
    prepared.factory === undefined &&
    prepared.replayable &&
    remaining > attemptTimeoutMs + s.connectTimeoutMs + UNDICI_TIMER_SLACK;
  let controller: AbortController | undefined;
  let timer: unknown;
  let onAbort: (() => void) | undefined;
  if (!agentBound) {
    const own = new AbortController();
    controller = own;
    timer = clock.setTimeout(() => {
      own.abort(
        deadlineBound
          ? new DeadlineExceededError(c.deadlineMs, { cause: lastError })
          : new AttemptTimeoutError(attemptTimeoutMs),
      );
    }, timeoutMs);
    if (signal !== null) onAbort = forwardAbort(signal, own);
  }
  const headers = c.pairs.slice();
  if (s.attemptHeader !== false) headers.push([s.attemptHeader, String(attempt)]);
  if (s.deadlineHeader !== false) headers.push([s.deadlineHeader, String(Math.floor(timeoutMs))]);
  if (attemptChannel.hasSubscribers) {
    attemptChannel.publish({ url: c.url, method: c.verb, attempt, timeoutMs });
  }

  const sent: Sent = { response: undefined, error: undefined, controller, onAbort };
  try {
    // `base` is this call's own copy of the init: set per attempt rather than copied again.
    base.headers = headers;
    base.body = (prepared.factory === undefined ? prepared.body : prepared.factory()) as RequestInit['body'];
    base.signal = controller === undefined ? signal : controller.signal;
    const t = c.trace;
    sent.response = await (t === undefined
      ? s.transport(c.url, base)
      : t.attempt(attempt, headers, c.breaker?.state, () => s.transport(c.url, base)));
  } catch (caught) {
    sent.error = caught;
    if (agentBound && causeCode(caught) === 'UND_ERR_HEADERS_TIMEOUT') {
      sent.error = new AttemptTimeoutError(attemptTimeoutMs, { cause: caught });
    }
  } finally {
    if (controller !== undefined) clock.clearTimeout(timer);
  }
  c.trace?.attemptEnded(sent.response, sent.error);
  return sent;
}
