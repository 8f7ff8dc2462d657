// Keyset-pagination cursors: the sort key of a page's last row, as base64url JSON. A cursor comes
// back from the client, so it is hostile input that ends up as bound parameters of a query: each
// list declares the type of every part, and decode() lets through only what its own encode() can
// produce, so a forged cursor is a coded error here and never a PostgreSQL error (a '0' cast to
// timestamptz, '9.5' to bigint, a NUL in a text parameter). Not signed: see docs/decisions.md.
// A timestamp part is exact to the microsecond, as timestamptz is: a key cut to the millisecond
// skips the rows of that millisecond after the page's last one (docs/decisions.md, session 10).
import { InvalidCursorError } from './errors.js';
import { isStorableTimestamp, unstorableReason } from './storable.js';

/**
 * The type of one part of a cursor:
 * - `timestamp`: an instant in UTC, exact to the microsecond as {@link cursorTimestampSql} selects
 *   it (`2026-06-01T12:00:00.123456Z`), or to the millisecond as `Date.prototype.toISOString()`
 *   writes it (`2026-06-01T12:00:00.123Z`, also what encode() writes for a whole millisecond), in
 *   years 0001–9999;
 * - `text`: 1–255 characters PostgreSQL can store (no NUL, no lone surrogate);
 * - `bigint`: a positive decimal integer that fits in a PostgreSQL `bigint`.
 */
export type CursorPart = 'timestamp' | 'text' | 'bigint';

/** The values of a cursor, one string per part. */
export type CursorValues<P extends readonly CursorPart[]> = { [K in keyof P]: string };

export interface KeysetCursor<P extends readonly CursorPart[]> {
  readonly parts: P;
  encode(values: CursorValues<P>): string;
  /** The values of a cursor this codec encoded; throws InvalidCursorError for anything else. */
  decode(cursor: string): CursorValues<P>;
}

/** Longer than any cursor encode() writes (255-character ids): refused before decoding. */
const MAX_CURSOR_LENGTH = 1024;
// toISOString()'s form, and optionally three more digits: the microseconds.
const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})(\d{3})?Z$/;
const WHOLE_MS = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})000Z$/;
const BIGINT = /^[1-9][0-9]{0,18}$/;
const BIGINT_MAX = 9_223_372_036_854_775_807n;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function validPart(part: CursorPart, v: unknown): v is string {
  if (typeof v !== 'string') return false;
  switch (part) {
    case 'timestamp': {
      const m = ISO.exec(v);
      // A whole millisecond is written in toISOString()'s form: one spelling per instant.
      if (!m || m[2] === '000') return false;
      const ms = Date.parse(`${m[1]}Z`);
      // The round trip refuses dates that do not exist (2026-02-30), which Date.parse rolls over.
      return isStorableTimestamp(ms) && new Date(ms).toISOString() === `${m[1]}Z`;
    }
    case 'text':
      return v.length > 0 && v.length <= 255 && unstorableReason(v) === undefined;
    case 'bigint':
      return BIGINT.test(v) && BigInt(v) <= BIGINT_MAX;
  }
}

/**
 * A cursor codec for a list sorted by the given parts, in order.
 * @example
 * const cursor = keysetCursor('timestamp', 'text');
 * // select ..., ${cursorTimestampSql('created_at')} as created_at_us ... order by created_at desc, id desc
 * const next = cursor.encode([last.created_at_us, last.id]);
 * const [at, id] = cursor.decode(request.query.cursor); // InvalidCursorError when forged
 */
export function keysetCursor<const P extends readonly CursorPart[]>(...parts: P): KeysetCursor<P> {
  return {
    parts,
    encode: (values) =>
      Buffer.from(
        JSON.stringify(
          parts.map((part, i) => {
            const v = values[i];
            // A whole millisecond as toISOString() writes it: the cursors of rows written with
            // milliseconds are the ones earlier versions handed out.
            return part === 'timestamp' && typeof v === 'string' ? v.replace(WHOLE_MS, '$1Z') : v;
          }),
        ),
      ).toString('base64url'),
    decode(cursor) {
      const invalid = (why: string) =>
        new InvalidCursorError(`the cursor is not one this API returned: ${why}`);
      if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) {
        throw invalid('length');
      }
      const bytes = Buffer.from(cursor, 'base64url');
      // Node's decoder skips characters outside the alphabet; only the exact encoding is ours.
      if (bytes.toString('base64url') !== cursor) throw invalid('not base64url');
      let value: unknown;
      try {
        value = JSON.parse(utf8.decode(bytes));
      } catch {
        throw invalid('not JSON');
      }
      if (!Array.isArray(value) || value.length !== parts.length) throw invalid('shape');
      parts.forEach((part, i) => {
        if (!validPart(part, value[i])) throw invalid(`part ${i} is not a ${part}`);
      });
      return value as CursorValues<P>;
    },
  };
}

/**
 * SQL for the value of a `timestamp` cursor part from a `timestamptz` expression: the instant in
 * UTC with its microseconds (`2026-06-01T12:00:00.123456Z`), whatever the session's DateStyle and
 * TimeZone; null outside years 0001–9999 (BC, infinity), which no cursor carries. Select it beside
 * the row and bind the decoded part back as `$n::timestamptz`: the comparison stays on the column,
 * so the list's index serves it as before.
 * @example cursorTimestampSql('d.created_at')
 */
export const cursorTimestampSql = (column: string): string =>
  `case when ${column} >= '0001-01-01T00:00:00Z' and ${column} < '10000-01-01T00:00:00Z' ` +
  `then to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') end`;
