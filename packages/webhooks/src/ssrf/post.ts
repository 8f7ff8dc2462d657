// One delivery attempt through a guarded dispatcher: validate the URL, POST, read at most
// `maxResponseBytes` of the answer, map every failure to a stable code.
import { setMaxListeners } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { dispatchCapped } from './capped-dispatch.js';
import type { GuardedDispatcher } from './dispatcher.js';
import { DeliveryError, type DeliveryErrorCode, isTlsErrorCode, WebhookUrlError } from './errors.js';
import { validateWebhookUrl } from './validate-url.js';

/** Options of {@link guardedPost}. */
export interface GuardedPostOptions {
  /** Request headers (content-type, the signature headers). @default {} */
  headers?: Record<string, string>;
  /** The raw body, sent as is. @default '' */
  body?: string | Uint8Array;
  /**
   * Budget for the whole attempt (connect, headers, body read), in ms. Failing it is `timeout`.
   * @default the dispatcher's timeoutMs (10000)
   */
  timeoutMs?: number;
  /**
   * Bytes of response body kept; the rest is discarded unread and the connection closed.
   * @default the dispatcher's maxResponseBytes (65536)
   */
  maxResponseBytes?: number;
  /** Aborts the attempt (e.g. on shutdown); reported as `timeout`. @default undefined */
  signal?: AbortSignal;
}

/** What a delivery attempt produced. A 3xx is returned as is: redirects are never followed. */
export interface GuardedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /**
   * The first `maxResponseBytes` of the body, decoded as UTF-8: bytes that are not UTF-8 (and a
   * character cut by the cap) become U+FFFD; everything else is kept as sent, U+0000 included, so
   * this string is not always storable in PostgreSQL `text` (a NUL fails the statement). The delivery
   * worker stores it through `toPgText` (../pg-text.ts), which replaces what PostgreSQL cannot hold.
   */
  readonly bodyExcerpt: string;
  /** True when the body was longer than the cap and the rest was discarded. */
  readonly truncated: boolean;
  /** From just before the request to the end of the body read, in ms. */
  readonly durationMs: number;
}

/**
 * POSTs `body` to `url` through `guard`. Resolves with the response whatever its status (2xx, 3xx,
 * 4xx, 5xx: the caller decides); throws {@link DeliveryError} with a stable `code` when there is no
 * response: `invalid_url`, `ssrf_blocked`, `dns_failed`, `connect_timeout`, `timeout`, `tls_error`,
 * `connection_error`.
 * @default options { headers: {}, body: '', timeoutMs: guard.options.timeoutMs (10000),
 *   maxResponseBytes: guard.options.maxResponseBytes (65536) }
 * @example
 * const res = await guardedPost(guard, 'https://hooks.example.com/in', {
 *   headers: { 'content-type': 'application/json', 'webhook-signature': sig },
 *   body: raw,
 * });
 * const delivered = res.status >= 200 && res.status < 300;
 */
export async function guardedPost(
  guard: GuardedDispatcher,
  url: string | URL,
  options: GuardedPostOptions = {},
): Promise<GuardedResponse> {
  const timeoutMs = options.timeoutMs ?? guard.options.timeoutMs;
  const maxBytes = options.maxResponseBytes ?? guard.options.maxResponseBytes;
  const target = checkUrl(guard, url);
  const checked = target.checked;
  if (!checked.ok) {
    if (checked.reason === 'blocked_address') {
      // Same code as a name resolving to a blocked address, so operators search for one thing.
      throw new DeliveryError('ssrf_blocked', checked.message, {
        cause: new WebhookUrlError(checked.reason, checked.message),
      });
    }
    throw new WebhookUrlError(checked.reason, checked.message);
  }
  const started = performance.now();
  const deadline = timeoutSignal(guard, timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    const res = await dispatchCapped(
      guard.dispatcher,
      {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: options.headers ?? {},
        body: options.body ?? '',
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      },
      signal,
      maxBytes,
    );
    return { ...res, durationMs: performance.now() - started };
  } catch (error) {
    throw toDeliveryError(error, signal);
  }
}

// Per-guard caches. Thousands of attempts a second go to a handful of URLs with the same timeout:
// each URL is parsed and checked once, with the origin and path undici is given (bounded cache; the
// connector still resolves and checks every address it connects to), and attempts starting within
// the same TIMEOUT_SLOT_MS share one abort signal and one timer, so an attempt is cut off between
// timeoutMs and timeoutMs + TIMEOUT_SLOT_MS after it began.
const URL_CACHE_SIZE = 1024;
const TIMEOUT_SLOT_MS = 50;
interface CheckedTarget {
  checked: ReturnType<typeof validateWebhookUrl>;
  origin: string;
  path: string;
}
interface GuardState {
  urls: Map<string, CheckedTarget>;
  slots: Map<number, { signal: AbortSignal; until: number }>;
}
const states = new WeakMap<GuardedDispatcher, GuardState>();
const stateOf = (guard: GuardedDispatcher): GuardState => {
  let state = states.get(guard);
  if (!state) {
    state = { urls: new Map(), slots: new Map() };
    states.set(guard, state);
  }
  return state;
};

function checkTarget(guard: GuardedDispatcher, url: string | URL): CheckedTarget {
  const checked = validateWebhookUrl(url, {
    allowHttp: guard.options.allowHttp,
    allowList: guard.options.allowList,
    maxLength: guard.options.maxUrlLength,
  });
  return checked.ok
    ? { checked, origin: checked.url.origin, path: `${checked.url.pathname}${checked.url.search}` }
    : { checked, origin: '', path: '' };
}

function checkUrl(guard: GuardedDispatcher, url: string | URL): CheckedTarget {
  if (typeof url !== 'string') return checkTarget(guard, url);
  const { urls } = stateOf(guard);
  let target = urls.get(url);
  if (!target) {
    target = checkTarget(guard, url);
    if (urls.size >= URL_CACHE_SIZE) urls.clear();
    urls.set(url, target);
  }
  return target;
}

function timeoutSignal(guard: GuardedDispatcher, timeoutMs: number): AbortSignal {
  const { slots } = stateOf(guard);
  const now = performance.now();
  const slot = slots.get(timeoutMs);
  if (slot && now < slot.until) return slot.signal;
  const controller = new AbortController();
  // One listener per attempt in flight in this slot (undici removes its own when the attempt ends).
  setMaxListeners(0, controller.signal);
  const timer = setTimeout(
    () => controller.abort(new DeliveryError('timeout', `no complete response within ${timeoutMs} ms`)),
    timeoutMs + TIMEOUT_SLOT_MS,
  );
  // Attempts in flight keep the process alive; a slot whose attempts are all done must not.
  timer.unref();
  slots.set(timeoutMs, { signal: controller.signal, until: now + TIMEOUT_SLOT_MS });
  return controller.signal;
}

/**
 * Maps undici, socket and guard errors onto {@link DeliveryErrorCode}s, keeping the original as `cause`.
 * @example
 * toDeliveryError(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' })).code; // 'timeout'
 */
export function toDeliveryError(error: unknown, signal?: AbortSignal): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (signal?.aborted) {
    const reason = signal.reason;
    if (reason instanceof DeliveryError)
      return new DeliveryError(reason.code, reason.message, { cause: error });
    return new DeliveryError('timeout', 'the attempt was aborted', { cause: error });
  }
  const err = error as { code?: unknown; message?: unknown; cause?: unknown } | null;
  const code = typeof err?.code === 'string' ? err.code : '';
  const message = typeof err?.message === 'string' ? err.message : String(error);
  const as = (c: DeliveryErrorCode) => new DeliveryError(c, message, { cause: error });
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return as('connect_timeout');
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
    return as('timeout');
  }
  if (isTlsErrorCode(code)) return as('tls_error');
  if (err?.cause && err.cause !== error && err.cause instanceof DeliveryError) return err.cause;
  return as('connection_error');
}
