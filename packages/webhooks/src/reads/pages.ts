// Keyset pages shared by every list of the package (endpoints, events, deliveries, applications).
import { type CursorPart, type CursorValues, type KeysetCursor, keysetCursor } from '@surety/db';
import { WebhookError } from '../errors.js';

/** A page of a keyset-paginated list: stable under concurrent inserts (no duplicates, no gaps). */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

// Cursors are @surety/db's keyset codec; every list is by (time, id). A forged one is a WebhookError
// SURETY_INVALID_CURSOR (the package's own error, with the codec's as its cause). The time is the
// row's created_at to the microsecond, selected as text (sql/values.ts, createdAtUs): the API's
// createdAt is cut to the millisecond, and a cursor cut so would skip the rows of that millisecond
// after the page's last one.
export const BY_TIME = keysetCursor('timestamp', 'text');

/** A row of a list by (created_at, id), with its created_at exact (the API's createdAt is cut to ms). */
export interface KeyedRow {
  /** created_at to the microsecond, as the cursor carries it (sql/values.ts, createdAtUs). */
  created_at_us: string;
  id: string;
}

/** The cursor after a row of a list by (created_at, id). */
export const byTimeKey = (r: KeyedRow): [string, string] => [r.created_at_us, r.id];

export function decode<P extends readonly CursorPart[]>(
  codec: KeysetCursor<P>,
  cursor: string,
): CursorValues<P> {
  try {
    return codec.decode(cursor);
  } catch (error) {
    throw new WebhookError('SURETY_INVALID_CURSOR', 'the cursor is not one this API returned', {
      cause: error,
    });
  }
}

export function page<T, R, P extends readonly CursorPart[]>(
  rows: R[],
  limit: number,
  map: (r: R) => T,
  codec: KeysetCursor<P>,
  key: (r: R) => CursorValues<P>,
): Page<T> {
  const hasMore = rows.length > limit;
  const kept = rows.slice(0, limit);
  const last = kept.at(-1);
  return { data: kept.map(map), hasMore, nextCursor: hasMore && last ? codec.encode(key(last)) : null };
}

/** A page of a list: at most `limit` items (default 20) after `cursor` (a `nextCursor`). */
export interface PageInput {
  limit?: number;
  cursor?: string;
}
