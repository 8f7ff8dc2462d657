import { ConditionalError } from './errors.js';
import { type ETag, parseETag, strongMatch, weakMatch } from './etag.js';
import { type HeaderSource, readHeader } from './headers.js';
import { parseETagList, parseHttpDate } from './parse.js';

/** The state of the target resource that preconditions are evaluated against. */
export interface CurrentState {
  /** Whether the target resource has a current representation. `If-Match: *` needs one; `If-None-Match: *` needs none. */
  exists: boolean;
  /** Its ETag header value (`"v7"`, `W/"abc"`), as the response would send it. @default undefined (no tag: no list matches it) */
  etag?: string | undefined;
  /** Its last modification time, compared at one-second resolution. @default undefined (date conditions cannot be verified) */
  lastModified?: Date | undefined;
}

/** The input of {@link evaluatePreconditions}. */
export interface PreconditionInput {
  /** The request method; `GET`/`HEAD` turn a failed If-None-Match into 304 instead of 412. */
  method: string;
  /** The request headers: Node's `req.headers` or a Fetch `Headers`. */
  headers: HeaderSource;
  current: CurrentState;
  /**
   * Answer 428 when the request carries no If-Match, If-None-Match or If-Unmodified-Since (RFC 6585 §3).
   * Set it on writes that must not be blind (replace, patch, delete). For a PUT that may also create,
   * `If-None-Match: *` counts as a precondition; pass `require: current.exists` to allow unconditional creates.
   * @default false
   */
  require?: boolean | undefined;
  /**
   * RFC 9110 §13.1.4 says an invalid If-Unmodified-Since is ignored. Ignoring it can let a write through
   * that the client meant to guard, so by default it is a 400; `true` ignores it as the RFC says (with
   * `require`, an ignored date then answers 428). An invalid If-Modified-Since is always ignored: it
   * only ever costs a full 200 (and old browsers send `date; length=n`).
   * @default false
   */
  lenientDates?: boolean | undefined;
  /** The clock for two-digit RFC 850 years. @default new Date() */
  now?: Date | undefined;
}

/** The precondition header a result is about. */
export type PreconditionHeader = 'if-match' | 'if-none-match' | 'if-unmodified-since' | 'if-modified-since';

/**
 * What to do with the request, tagged `kind` (the discriminant: narrow on it). Every kind but
 * `proceed` is a final answer with its status; the error kinds are named as the problem+json `code`
 * they are sent with. `outcome` carries the same value (kept for existing callers).
 */
export type PreconditionResult =
  | {
      kind: 'proceed';
      outcome: 'proceed';
      /** If-Match was sent (and held). */
      ifMatch: boolean;
      /**
       * A precondition was sent and held (If-Match, If-None-Match or If-Unmodified-Since): if the versioned
       * update then matches 0 rows, the condition turned false in between and the answer is 412, not 409.
       */
      conditional: boolean;
    }
  | {
      kind: 'not_modified';
      outcome: 'not_modified';
      status: 304;
      header: 'if-none-match' | 'if-modified-since';
    }
  | {
      kind: 'precondition_failed';
      outcome: 'precondition_failed';
      status: 412;
      header: 'if-match' | 'if-unmodified-since' | 'if-none-match';
    }
  | { kind: 'precondition_required'; outcome: 'precondition_required'; status: 428 }
  | {
      kind: 'malformed_precondition';
      outcome: 'malformed_precondition';
      status: 400;
      header: PreconditionHeader;
      detail: string;
    };

// RFC 9110 §13.2.1: preconditions are ignored for CONNECT, OPTIONS and TRACE.
const IGNORED = new Set(['CONNECT', 'OPTIONS', 'TRACE']);

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

function currentTag(current: CurrentState): ETag | undefined {
  if (!current.exists || current.etag === undefined) return undefined;
  const tag = parseETag(current.etag);
  if (!tag)
    throw new ConditionalError(
      'SURETY_CONDITIONAL_INVALID_ETAG',
      `current.etag is not a valid entity tag: ${JSON.stringify(current.etag)}`,
    );
  return tag;
}

/**
 * Evaluates If-Match, If-Unmodified-Since, If-None-Match and If-Modified-Since in the order of RFC 9110
 * §13.2.2, with strong comparison for If-Match and weak comparison for If-None-Match:
 *
 * 1. If-Match: false → 412. (`*` is true when the resource exists.)
 * 2. otherwise If-Unmodified-Since: modified after the date, or no date to compare → 412.
 * 3. If-None-Match: false → 304 for GET/HEAD, 412 otherwise. (`*` is false when the resource exists.)
 * 4. otherwise, GET/HEAD only, If-Modified-Since: not modified since → 304.
 *
 * Malformed If-Match / If-None-Match / If-Unmodified-Since → 400 before anything is evaluated; no
 * precondition but `require` → 428. A condition that cannot be verified (If-Unmodified-Since on a resource
 * without `lastModified`) is false: a write is refused rather than let through.
 *
 * Call it where the request would otherwise succeed (RFC 9110 §13.2.1): after authentication, validation
 * and the 404 of routes that cannot create, and after the idempotency check, so that a retried write whose
 * original succeeded is replayed instead of failing its own If-Match.
 * @example
 * const result = evaluatePreconditions({
 *   method: 'PATCH',
 *   headers: req.headers,
 *   current: { exists: true, etag: versionETag(row.version), lastModified: row.updated_at },
 *   require: true,
 * });
 * if (result.kind !== 'proceed') return sendProblem(result); // 304, 400, 412 or 428
 */
export function evaluatePreconditions(input: PreconditionInput): PreconditionResult {
  const method = input.method.toUpperCase();
  if (IGNORED.has(method)) return { kind: 'proceed', outcome: 'proceed', ifMatch: false, conditional: false };
  const { headers, current } = input;
  const safe = method === 'GET' || method === 'HEAD';

  // Parse everything first: a malformed header is a 400 whatever the others say.
  const ifMatchRaw = readHeader(headers, 'if-match');
  const ifNoneMatchRaw = readHeader(headers, 'if-none-match');
  const ifUnmodifiedRaw = readHeader(headers, 'if-unmodified-since');
  const ifModifiedRaw = safe ? readHeader(headers, 'if-modified-since') : undefined;

  const ifMatch = ifMatchRaw === undefined ? undefined : parseETagList(ifMatchRaw);
  if (ifMatch && !ifMatch.ok) return malformed('if-match', `If-Match: ${ifMatch.detail}`);
  const ifNoneMatch = ifNoneMatchRaw === undefined ? undefined : parseETagList(ifNoneMatchRaw);
  if (ifNoneMatch && !ifNoneMatch.ok)
    return malformed('if-none-match', `If-None-Match: ${ifNoneMatch.detail}`);

  let ifUnmodified: Date | undefined;
  if (ifUnmodifiedRaw !== undefined) {
    ifUnmodified = parseHttpDate(ifUnmodifiedRaw, input.now);
    if (!ifUnmodified && !input.lenientDates) {
      return malformed(
        'if-unmodified-since',
        `If-Unmodified-Since: ${JSON.stringify(ifUnmodifiedRaw)} is not an HTTP-date such as "Sun, 06 Nov 1994 08:49:37 GMT"`,
      );
    }
  }
  // RFC 9110 §13.1.3: ignored when invalid, and when If-None-Match is present.
  const ifModified =
    ifModifiedRaw === undefined || ifNoneMatch ? undefined : parseHttpDate(ifModifiedRaw, input.now);

  if (input.require && !ifMatch && !ifNoneMatch && !ifUnmodified) {
    return { kind: 'precondition_required', outcome: 'precondition_required', status: 428 };
  }

  const tag = currentTag(current);

  // Step 1: If-Match, strong comparison (RFC 9110 §13.1.1).
  if (ifMatch) {
    const holds = ifMatch.any
      ? current.exists
      : tag !== undefined && ifMatch.tags.some((t) => strongMatch(t, tag));
    if (!holds)
      return { kind: 'precondition_failed', outcome: 'precondition_failed', status: 412, header: 'if-match' };
  } else if (ifUnmodified) {
    // Step 2: If-Unmodified-Since, only without If-Match (RFC 9110 §13.1.4).
    const holds =
      current.exists &&
      current.lastModified !== undefined &&
      seconds(current.lastModified) <= seconds(ifUnmodified);
    if (!holds)
      return {
        kind: 'precondition_failed',
        outcome: 'precondition_failed',
        status: 412,
        header: 'if-unmodified-since',
      };
  }

  // Step 3: If-None-Match, weak comparison (RFC 9110 §13.1.2).
  if (ifNoneMatch) {
    const holds = ifNoneMatch.any
      ? !current.exists
      : tag === undefined || !ifNoneMatch.tags.some((t) => weakMatch(t, tag));
    if (!holds) {
      return safe
        ? { kind: 'not_modified', outcome: 'not_modified', status: 304, header: 'if-none-match' }
        : {
            kind: 'precondition_failed',
            outcome: 'precondition_failed',
            status: 412,
            header: 'if-none-match',
          };
    }
  } else if (ifModified && current.exists && current.lastModified !== undefined) {
    // Step 4: If-Modified-Since, GET/HEAD only (ifModified is undefined otherwise).
    if (seconds(current.lastModified) <= seconds(ifModified)) {
      return { kind: 'not_modified', outcome: 'not_modified', status: 304, header: 'if-modified-since' };
    }
  }

  return {
    kind: 'proceed',
    outcome: 'proceed',
    ifMatch: ifMatch !== undefined,
    conditional: ifMatch !== undefined || ifNoneMatch !== undefined || ifUnmodified !== undefined,
  };
}

function malformed(header: PreconditionHeader, detail: string): PreconditionResult {
  return { kind: 'malformed_precondition', outcome: 'malformed_precondition', status: 400, header, detail };
}
