// Values as the SQL and the API write them: ids' random tails, timestamps (list cursors, the
// API's ISO form) and the event-time bound of a delivery's lookup.
import { cursorTimestampSql } from '@surety/db';

/**
 * SQL for the 14 random characters that complete an id after its time (`idTimePrefix`): 84 bits
 * from two `gen_random_uuid()` (bytes 0-5 and 0-4 of a version-4 UUID are all random), written in
 * base64 with `+` and `/` mapped into the id's alphabet. A fresh value on every row it is evaluated
 * for. A quarter of the cost of `webhook_new_id` (migration 000012), which builds each character
 * with its own substr(): 7.5 against 29 µs an id, measured on PostgreSQL 15 (issue 22).
 */
export const RANDOM_ID_TAIL = `translate(left(encode(uuid_send(gen_random_uuid()), 'base64'), 8) || left(encode(uuid_send(gen_random_uuid()), 'base64'), 6), '+/', 'Ab')`;

/** The select-list entry for a list row's `created_at_us` (reads/pages.ts, KeyedRow), from the given column. */
export const createdAtUs = (column: string) => `${cursorTimestampSql(column)} as created_at_us`;

/** Timestamps as the API spells them (ISO 8601, UTC); null stays null. */
export const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * Narrows a delivery's event (`ev`) to its creation time, so that a lookup by (tenant, id) reads
 * one partition of the events (run-time pruning): the time recorded with the delivery, or for a
 * delivery written before migration 000014 (none recorded), no later than the delivery itself.
 */
export const eventTime = (ev: string, d: string) =>
  `${ev}.created_at >= coalesce(${d}.event_created_at, '-infinity') and ${ev}.created_at <= coalesce(${d}.event_created_at, ${d}.created_at)`;
