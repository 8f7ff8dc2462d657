// @ts-check
// The /v1 client, shared by the dashboard and the consumer portal: a bearer credential (the
// dashboard's tenant API key, or the portal's session token), problem+json errors as ApiError with
// the server's `detail`, and an Idempotency-Key on every POST so that a double click or a retry
// cannot act twice.

/** @typedef {import('./types.js').Problem} Problem */

/** Where this page keeps its credential: set once by the page's app.js (`session.configure`). */
let storageKey = 'surety.apiKey';
/** The credential of this page load; sessionStorage may be refused (a third-party iframe). */
/** @type {string | null} */
let memory = null;

const stored = () => {
  try {
    return sessionStorage.getItem(storageKey);
  } catch {
    return null; // storage refused: the credential lives in memory only
  }
};

/**
 * Dispatched on `window` when the service refuses the key (401): the app signs out and says why.
 * An event rather than a registered callback, so that this module holds no state of its own.
 */
export const UNAUTHORIZED = 'surety:unauthorized';

/**
 * The credential for this browser tab only (memory, and sessionStorage when allowed: gone when the tab
 * closes; never in a URL): the dashboard's API key or the portal's session token, both sent as
 * `Authorization: Bearer`.
 */
export const session = {
  /**
   * Names the sessionStorage entry (each page its own: the portal never reads the dashboard's key).
   * @param {{ storageKey: string }} options
   */
  configure(options) {
    storageKey = options.storageKey;
    memory = null;
  },
  get key() {
    return memory ?? stored();
  },
  /** @param {string} key */
  signIn(key) {
    memory = key;
    try {
      sessionStorage.setItem(storageKey, key);
    } catch {
      // storage refused: kept in memory, for this page load only
    }
  },
  signOut() {
    memory = null;
    try {
      sessionStorage.removeItem(storageKey);
    } catch {
      // nothing was stored
    }
  },
};

export class ApiError extends Error {
  /**
   * @param {number} status 0: the service could not be reached
   * @param {Problem} problem
   */
  constructor(status, problem) {
    super(problem.detail || problem.title || `The service answered ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = problem.code;
    this.title = problem.title;
    /** Which fields were refused and why (validation problems). */
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
  }
}

/**
 * The HTTP status of an ApiError; undefined for anything else.
 * @param {unknown} error
 */
export const statusOf = (error) => (error instanceof ApiError ? error.status : undefined);

/**
 * A fresh Idempotency-Key. crypto.randomUUID exists only in secure contexts (https, localhost);
 * a dashboard opened over plain http on another host falls back to getRandomValues, which exists everywhere.
 * @returns {string}
 */
export function newIdempotencyKey() {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// A POST with a key is safe to send again: the service answers a repeat with the first outcome.
const RETRYABLE = new Set([0, 409, 502, 503, 504]);
/** @param {number} ms */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * @typedef {object} CallOptions
 * @property {unknown} [body] sent as JSON
 * @property {string} [idempotencyKey] POSTs: the same key on every try of one button press
 * @property {string} [ifMatch] If-Match: 412 instead of overwriting a newer version
 * @property {string | null} [key] the API key @default session.key
 */

/**
 * Calls the API. The type parameter names the answer's shape (unchecked: the service's schema).
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path
 * @param {CallOptions} [options]
 * @returns {Promise<T>} the parsed JSON body
 * @throws {ApiError} with the problem's `detail` as its message
 */
export async function api(method, path, options = {}) {
  return /** @type {T} */ ((await apiWithETag(method, path, options)).data);
}

/**
 * `api`, with the answer's ETag. `ifMatch` sends If-Match: a write that must not overwrite a change
 * made since that version was read (412 when it would).
 * @template [T=unknown]
 * @param {string} method
 * @param {string} path
 * @param {CallOptions} [options]
 * @returns {Promise<{ data: T, etag: string | null }>}
 */
export async function apiWithETag(method, path, { body, idempotencyKey, ifMatch, key = session.key } = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json', authorization: `Bearer ${key ?? ''}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
  if (ifMatch) headers['if-match'] = ifMatch;
  const tries = idempotencyKey ? 3 : 1;
  for (let i = 1; ; i++) {
    const { status, data, etag } = await send(method, path, headers, body);
    if (status >= 200 && status < 300) return { data: /** @type {T} */ (data), etag: etag ?? null };
    const error = new ApiError(status, /** @type {Problem} */ (data ?? {}));
    if (status === 401) {
      window.dispatchEvent(new CustomEvent(UNAUTHORIZED, { detail: error }));
      throw error;
    }
    if (i >= tries || !RETRYABLE.has(status)) throw error;
    await sleep(250 * 2 ** (i - 1) * (1 + Math.random()));
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {Record<string, string>} headers
 * @param {unknown} body
 * @returns {Promise<{ status: number, data: unknown, etag?: string | null }>}
 */
async function send(method, path, headers, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    return {
      status: 0,
      data: { detail: 'The service could not be reached. Check that it is running, then try again.' },
    };
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: `The service answered ${res.status} with a body that is not JSON.` };
  }
  return { status: res.status, data, etag: res.headers.get('etag') };
}

/**
 * `/v1/…` with path segments escaped.
 * @param {TemplateStringsArray} strings
 * @param {string[]} values
 */
export const path = (strings, ...values) =>
  strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(values[i] ?? '') : ''), '');
