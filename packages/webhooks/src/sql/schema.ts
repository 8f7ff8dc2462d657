// The names a schema's SQL uses: its quoted tables, its prepared statements' names, its advisory
// lock ids and its NOTIFY channel.
import { createHash } from 'node:crypto';
import { quoteSchema, type Statement } from '@surety/db';

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
  const qs = quoteSchema(schema);
  const n = (name: string) => statementName(name, schema);
  return {
    schema,
    /** The schema, quoted for SQL. */
    qs,
    EP: `${qs}.webhook_endpoints`,
    EV: `${qs}.webhook_events`,
    D: `${qs}.webhook_deliveries`,
    A: `${qs}.webhook_attempts`,
    /** The workers' slot counts (fair claims). */
    WS: `${qs}.webhook_worker_slots`,
    T: `${qs}.webhook_tenants`,
    AP: `${qs}.webhook_applications`,
    /** Event ids chosen by publishers (unique per tenant across the events' partitions). */
    K: `${qs}.webhook_event_ids`,
    /** The partition windows (retention/maintain.ts). */
    P: `${qs}.webhook_partitions`,
    st: (name: string, text: string): Statement => ({ name: n(name), text }),
  };
}

export type Names = ReturnType<typeof names>;
