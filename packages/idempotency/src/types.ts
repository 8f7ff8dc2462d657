import type { Sql, Tx } from '@surety/db';
import type { Statements } from './statements.js';
import type { BodyEncoding, BodyLimits, EncodedBody } from './stored-body.js';

/** A response as stored and replayed: status, the headers that describe the body, and the body. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /**
   * Overrides `isFinal` for this one answer: `false` rolls it back and stores nothing (a lost race
   * the client should re-read and retry), `true` stores it whatever its status. Not stored itself.
   */
  final?: boolean;
}

export interface IdempotencyRequest {
  /** Keys are scoped per tenant: the same key in two tenants is two operations. */
  tenant: string;
  key: string;
  /** From `fingerprint()`: a different fingerprint under the same key is a client bug (422). */
  fingerprint: string;
  /**
   * Other forms this key may be stored under by an earlier version (the adapters pass the quoted
   * form, `"k"`, in which a quoted header was stored before `"k"` and `k` became one key). Read only:
   * a live row under one is replayed (or is a 422, or in flight) as the key's own would be; a new
   * row is always stored under `key`. Lease mode reads them with one more query.
   * @default []
   */
  formerKeys?: readonly string[];
}

export type Outcome =
  /** The handler ran. `stored` is false for a 5xx (or another non-final status), which was rolled back. */
  | { kind: 'executed'; response: StoredResponse; stored: boolean }
  /** The original completed: replay its response with `Idempotent-Replayed: true`. */
  | { kind: 'replayed'; response: StoredResponse }
  /** The original is still running: answer 409 with Retry-After. */
  | { kind: 'in_flight'; retryAfterSeconds: number }
  /** The key was used with another request: answer 422. */
  | { kind: 'mismatch' };

/** What a stored row tells a request that did not run: every outcome but `executed`. */
export type Seen = Exclude<Outcome, { kind: 'executed' }>;

export interface IdempotencyOptions {
  sql: Sql;
  /** @default "surety" */
  schema?: string;
  /**
   * How long a completed key is remembered; after that the same key is a new operation.
   * @default 86_400_000 (24 h)
   */
  ttlMs?: number;
  /**
   * Lease mode: how long an in-progress key is reserved for its owner before a retry may take over.
   * @default 30_000
   */
  leaseMs?: number;
  /** Sent as `Retry-After` with a 409 while the original is in flight. @default 1 */
  retryAfterSeconds?: number;
  /** Injected clock (ms since the epoch), for tests. @default Date.now */
  now?: () => number;
  /**
   * Which answers are final and stored with the key. The others are rolled back and not stored,
   * so a retry with the same key runs again.
   * @default status < 500, except 400, 401, 403, 404, 405, 408, 412, 413, 415, 425, 428 and 429:
   * answers that say the request was not carried out (bad input, no such resource, a failed or
   * missing precondition, "try later"). A decline (402), a conflict such as out of stock (409) or
   * 422 are outcomes and are stored.
   */
  isFinal?: (status: number) => boolean;
  /**
   * Response bodies larger than this (UTF-8 bytes) are stored gzip-compressed (when that makes them
   * smaller); replays decompress them. @default 2048
   */
  compressAboveBytes?: number;
  /**
   * The most a body may take in the key's row, after compression. A larger body is not stored: the
   * key still records the outcome (status and headers), and a replay answers them with an empty body
   * and `Idempotent-Body-Omitted: true` (the client can GET the resource its `Location` names).
   * `Infinity` stores every body. @default 1_048_576 (1 MiB)
   */
  maxStoredBodyBytes?: number;
  /**
   * Called after a response is stored with its key (after COMMIT in atomic mode): its size as
   * answered and as stored, and how it was stored. For metrics; an error it throws is ignored.
   */
  onStored?: (info: StoredInfo) => void;
  /**
   * Warns (through `onWarning`) when a keyed request answered 2xx while its transaction wrote
   * nothing: the classic mistake of writing through the application's usual ORM instance, on
   * another connection, inside the handler (not atomic: docs/orm.md). Costs one statement per 2xx
   * while on (docs/benchmarks.md).
   * @default process.env.NODE_ENV !== 'production'
   */
  warnOnEmptyTransaction?: boolean;
  /**
   * Receives the engine's warnings.
   * @default console.warn of the warning's message
   */
  onWarning?: (warning: IdempotencyWarning) => void;
}

/** What `onStored` reports of one stored response. */
export interface StoredInfo {
  tenant: string;
  /** The body as the handler answered it, UTF-8 bytes. */
  bodyBytes: number;
  /** The body as the row holds it: text bytes, compressed bytes, or 0 when omitted. */
  storedBytes: number;
  encoding: BodyEncoding;
}

/** Something the engine noticed that is probably a bug in the application. */
export interface IdempotencyWarning {
  /** `SURETY_IDEMPOTENCY_EMPTY_TRANSACTION`: a 2xx whose transaction wrote nothing. */
  code: 'SURETY_IDEMPOTENCY_EMPTY_TRANSACTION';
  message: string;
  tenant: string;
  key: string;
  status: number;
}

/** An acquired lease-mode key. Only this owner may renew, complete or release it. */
export interface Lease {
  readonly key: string;
  readonly token: string;
  /** When the lease lapses unless renewed. */
  readonly expiresAt: Date;
  /**
   * Extends the lease; throws LeaseLostError when another request took the key over. Nothing to do
   * (and no error) once this owner has completed the key.
   */
  renew(): Promise<void>;
  /**
   * Stores the response. Pass the transaction of the business write to commit both atomically.
   * A second call by this owner once the key is completed is harmless (it stores nothing more),
   * so a `withLease` handler may complete inside its own transaction. Throws LeaseLostError when
   * fenced off.
   */
  complete(response: StoredResponse, tx?: Tx): Promise<void>;
  /** Deletes the in-progress row so a retry runs again (the operation failed without effect). */
  release(): Promise<void>;
}

export type AcquireResult = { kind: 'acquired'; lease: Lease } | Seen;

/** What the engine's parts share: its settings, resolved once, and its statements. Internal. */
export interface EngineContext {
  readonly sql: Sql;
  readonly st: Statements;
  readonly ttlMs: number;
  readonly leaseMs: number;
  readonly retryAfterSeconds: number;
  readonly now: () => number;
  /**
   * On PGlite only: the lock ids of the atomic-mode requests in flight in this process, shared by
   * every engine on the same `Sql` (claim.ts says why). Undefined on PostgreSQL.
   */
  readonly inFlight: Set<string> | undefined;
  /** `response.final`, else the `isFinal` option. */
  readonly final: (response: StoredResponse) => boolean;
  readonly bodyLimits: BodyLimits;
  /** Reports a stored response's size (the `onStored` option); never throws. */
  readonly stored: (tenant: string, body: EncodedBody) => void;
  /** The `onWarning` option when `warnOnEmptyTransaction` is on, else undefined. */
  readonly warnEmpty: ((warning: IdempotencyWarning) => void) | undefined;
}
