import { createHash } from 'node:crypto';
import { cursorTimestampSql, quoteSchema, type Statement } from '@surety/db';

/** A 64-bit advisory lock id for a name (signed, as pg_advisory_xact_lock takes it). */
export const lockId = (name: string) =>
  createHash('sha256').update(name).digest().readBigInt64BE(0).toString();

/** The LISTEN/NOTIFY channel workers wait on, per schema. */
export const notifyChannel = (schema: string) => `surety_webhooks_${schema}`;

/**
 * `surety_wh_<name>_<schema>`, or, when that is longer than the 63 bytes PostgreSQL keeps of a name
 * (schemas are ASCII, quoteSchema), its first 52 characters and 10 hex digits of its SHA-256: cut
 * at 63, two long schemas with a common prefix got the same names, and the second engine on a
 * connection was refused ("Prepared statements must be unique"), as in @surety/idempotency.
 */
function statementName(name: string, schema: string): string {
  const full = `surety_wh_${name}_${schema}`;
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 10);
  return `${full.slice(0, 63 - hash.length - 1)}_${hash}`;
}

/** The schema's quoted table names, and prepared statements named per schema. Internal to the package. */
export function names(schema: string) {
  const s = quoteSchema(schema);
  const n = (name: string) => statementName(name, schema);
  return {
    schema,
    s,
    EP: `${s}.webhook_endpoints`,
    EV: `${s}.webhook_events`,
    D: `${s}.webhook_deliveries`,
    A: `${s}.webhook_attempts`,
    S: `${s}.webhook_worker_slots`,
    T: `${s}.webhook_tenants`,
    AP: `${s}.webhook_applications`,
    /** Event ids chosen by publishers (unique per tenant across the events' partitions). */
    K: `${s}.webhook_event_ids`,
    /** The partition windows (src/partitions.ts). */
    P: `${s}.webhook_partitions`,
    st: (name: string, text: string): Statement => ({ name: n(name), text }),
  };
}

export type Names = ReturnType<typeof names>;

/**
 * SQL for the 14 random characters that complete an id after its time (`idTimePrefix`): 84 bits
 * from two `gen_random_uuid()` (bytes 0-5 and 0-4 of a version-4 UUID are all random), written in
 * base64 with `+` and `/` mapped into the id's alphabet. A fresh value on every row it is evaluated
 * for. A quarter of the cost of `webhook_new_id` (migration 000012), which builds each character
 * with its own substr(): 7.5 against 29 µs an id, measured on PostgreSQL 15 (issue 22).
 */
export const RANDOM_ID_TAIL = `translate(left(encode(uuid_send(gen_random_uuid()), 'base64'), 8) || left(encode(uuid_send(gen_random_uuid()), 'base64'), 6), '+/', 'Ab')`;

/** The select-list entry for a list row's `created_at_us` (pages.ts, KeyedRow), from the given column. */
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
