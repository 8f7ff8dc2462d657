import { Agent, type Dispatcher, fetch as undiciFetch } from 'undici';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from './backoff.js';
import { type Clock, systemClock } from './clock.js';
import type { GiveUpEvent, RetryEvent } from './events.js';
import { lower } from './header-pairs.js';
import { ATTEMPT_HEADER, DEADLINE_HEADER } from './headers.js';
import {
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ATTEMPTS,
  type FetchOptions,
  type Transport,
  type TransportInit,
} from './options.js';
import { createPerOrigin, type PerOrigin } from './per-origin.js';
import { DEFAULT_RETRY_METHODS, DEFAULT_RETRY_STATUSES } from './policy.js';

/** A client's options with every default filled in, worked out once by `createFetch`. */
export interface Settings extends PerOrigin {
  maxAttempts: number;
  deadlineMs: number;
  attemptTimeoutMs: number;
  connectTimeoutMs: number;
  backoff: { baseDelayMs: number; maxDelayMs: number };
  retryMethods: Set<string>;
  retryStatuses: Set<number>;
  idempotencyKey: NonNullable<FetchOptions['idempotencyKey']>;
  /** Lower-cased, or `false` for none. */
  deadlineHeader: string | false;
  attemptHeader: string | false;
  clock: Clock;
  wallClock: () => number;
  random: () => number;
  onRetry: ((event: RetryEvent) => void) | undefined;
  onGiveUp: ((event: GiveUpEvent) => void) | undefined;
  dispatcher: Dispatcher;
  /** Whether `dispatcher` is the client's own Agent (closed by `close()`). */
  ownDispatcher: boolean;
  transport: Transport;
  /** Whether the client's own Agent sends every attempt, so that its headersTimeout bounds them. */
  agentTimesAttempts: boolean;
}

/** The settings of `createFetch(options)`. */
export function clientSettings(options: FetchOptions): Settings {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const clock = options.clock ?? systemClock;
  const ownDispatcher = options.dispatcher === undefined;
  return {
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    deadlineMs: options.deadlineMs ?? DEFAULT_DEADLINE_MS,
    attemptTimeoutMs,
    connectTimeoutMs,
    backoff: {
      baseDelayMs: options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
    },
    retryMethods: new Set((options.retryMethods ?? DEFAULT_RETRY_METHODS).map((m) => m.toUpperCase())),
    retryStatuses: new Set(options.retryStatuses ?? DEFAULT_RETRY_STATUSES),
    idempotencyKey: options.idempotencyKey ?? false,
    // Lower-cased once here: undici stores header names lower-cased, and a name that already is saves it
    // work on every request (HTTP field names are case-insensitive, RFC 9110 §5.1).
    deadlineHeader: lower(options.deadlineHeader ?? DEADLINE_HEADER),
    attemptHeader: lower(options.attemptHeader ?? ATTEMPT_HEADER),
    clock,
    wallClock: options.wallClock ?? Date.now,
    random: options.random ?? Math.random,
    onRetry: options.onRetry,
    onGiveUp: options.onGiveUp,
    // The client's own Agent enforces the attempt timeout itself (headersTimeout), which lets most attempts
    // go out without an AbortSignal of ours: undici's fetch spends ~10 µs of CPU per request on a signal
    // (listeners, setMaxListeners, a FinalizationRegistry entry), measured in bench/client.
    dispatcher:
      options.dispatcher ??
      new Agent({ connect: { timeout: connectTimeoutMs }, headersTimeout: attemptTimeoutMs }),
    ownDispatcher,
    transport:
      options.transport ??
      (undiciFetch as unknown as (url: string, init: TransportInit) => Promise<Response>),
    agentTimesAttempts: ownDispatcher && options.transport === undefined,
    ...createPerOrigin(options, clock),
  };
}
