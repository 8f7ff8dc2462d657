import { createHash } from 'node:crypto';
import { type ParameterizedStatement, quoteSchema, type Statement } from '@surety/db';

/** The statements of the store, built once per schema. Every value is a bound parameter. */
export interface Statements {
  /** The advisory lock of one lock id, sent together with BEGIN, before `claim`. */
  claimLock: Statement;
  /** The claim of a key and at most one former form (see below), sent together with BEGIN. */
  claim: Statement;
  /** The claim of a key and more former forms than one, as an int8[] literal. */
  claimMany: Statement;
  /** The completed row, to travel with COMMIT (see below). */
  completeAtCommit: (values: CompleteValues, replace: boolean) => ParameterizedStatement;
  acquire: Statement;
  read: Statement;
  leaseComplete: Statement;
  completedBy: Statement;
  renew: Statement;
  release: Statement;
  purge: Statement;
  /** `purge`, committed with `synchronous_commit = off` (set for its own transaction only). */
  purgeAsyncCommit: Statement;
  wroteNothing: Statement;
}

/** The values of an atomic-mode completed row. */
export interface CompleteValues {
  tenant: string;
  key: string;
  fingerprint: string;
  status: number;
  headers: string;
  /** The `body` column: null when the body is compressed or omitted (stored-body.ts). */
  body: string | null;
  bodyGzip: Buffer | null;
  bodyEncoding: 'gzip' | 'omitted' | null;
  createdAt: string;
  expiresAt: string;
  lockId: string;
}

/** A stored row `k` in the claim's JSON row shape (replay.ts's ClaimRow, toRow). */
export const CLAIM_ROW_JSON = `json_build_object('tenant', k.tenant, 'key', k.key, 'fingerprint', k.fingerprint,
                      'state', k.state, 'status', k.status, 'headers', k.headers, 'body', k.body,
                      'body_gzip', encode(k.body_gzip, 'base64'), 'body_encoding', k.body_encoding,
                      'expires_at', k.expires_at, 'lease_expires_at', k.lease_expires_at)`;

export function statements(schema: string): Statements {
  const t = `${quoteSchema(schema)}.idempotency_keys`;
  const n = (name: string) => statementName(name, schema);
  const claimOf = (lockIds: string) =>
    `select coalesce(current_setting('surety.idempotency_locked', true)::bool, false) as locked,
            (select json_agg(${CLAIM_ROW_JSON}) from ${t} k where k.lock_id = ${lockIds}) as rows`;
  // $5 is the headers' JSON text, cast through text: a parameter PostgreSQL describes as jsonb is
  // JSON.stringify'd again by postgres.js (its jsonb serializer), stored as a JSON string.
  const insert = `insert into ${t} (tenant, key, fingerprint, state, status, headers, body, body_gzip, body_encoding, created_at, expires_at, lock_id)
               values ($1, $2, $3, 'completed', $4::int, $5::text::jsonb, $6, $7::bytea, $8, $9::timestamptz, $10::timestamptz, $11::int8)`;
  const complete: Statement = { name: n('complete'), text: insert };
  const completeReplace: Statement = {
    name: n('complete_replace'),
    text: `with w as (
             ${insert}
             on conflict (lock_id, tenant, key) do update
                set fingerprint = excluded.fingerprint, state = 'completed', owner = null,
                    lease_expires_at = null, status = excluded.status, headers = excluded.headers,
                    body = excluded.body, body_gzip = excluded.body_gzip, body_encoding = excluded.body_encoding,
                    created_at = excluded.created_at, expires_at = excluded.expires_at
              where ${t}.expires_at <= excluded.created_at
                 or (${t}.state = 'in_progress' and ${t}.lease_expires_at <= excluded.created_at)
             returning 1)
           select 1 / count(*)::int as written from w`,
  };
  return {
    // Atomic mode, first statement of the caller's transaction, in the same round trip as BEGIN
    // (pipelined before one Sync; a named statement, planned once per connection): take the key's
    // advisory lock without waiting and read any stored row. The lock is held until COMMIT/ROLLBACK,
    // so a second request with the same key gets `locked = false` at once (409) instead of queueing
    // on a row lock. $1 is the key's lock id and $2 its former form's (`formerKeys`; claimMany: all
    // of them, one int8[] literal): the rows of all of them are read in the same index scan. Rows
    // are matched to (tenant, key) in JS. Two columns, one row: `locked`, and `rows`, the stored rows as one JSON
    // array (null for a new key, nearly every request). With the row's twelve columns beside the
    // lock, node-postgres parsed a twelve-field row description on every request (addFields) for a
    // row of nulls: ~15 µs of the server's CPU per claim against ~2 µs's worth of JSON for a replay.
    // The lock is taken by `claimLock`, a statement of its own just before this one in the same
    // round trip, and passed on in a transaction-local setting: this statement's snapshot then
    // holds every commit made before the lock was granted, so a request that gets the lock after
    // another with the same key committed sees its stored row and does not run again. Taken in
    // this statement, the lock came after its snapshot: a commit in between was missed, the
    // handler ran a second time, and only the record at COMMIT (below) kept its writes out.
    // (A REPEATABLE READ transaction that joined Surety keeps its older snapshot: the record at
    // COMMIT is its guard.)
    claimLock: {
      name: n('claim_lock'),
      text: `select set_config('surety.idempotency_locked', pg_try_advisory_xact_lock($1::int8)::text, true)`,
    },
    // The lock ids as two parameters, the key's and its former form's (null without one), not as
    // one int8[]: for an array of unknown length the generic plan assumes ten elements and costs a
    // bitmap scan, so PostgreSQL kept planning this statement anew on every request (a custom plan
    // each time, pg_prepared_statements showed); with two it keeps the one generic plan.
    claim: {
      name: n('claim'),
      text: claimOf('any(array[$1::int8, $2::int8])'),
    },
    claimMany: {
      name: n('claim_many'),
      text: claimOf('any($1::int8[])'),
    },
    // Atomic mode: the completed row, written in the same transaction as the business write, sent
    // in one round trip with COMMIT (Tx.atCommit: on node-postgres pipelined with COMMIT before one
    // Sync; named, so parsed and planned once per connection: as a statement of literals it was
    // parsed and planned on every request). Two shapes, by what the claim saw:
    // - no row (nearly always): a plain INSERT. A row that the claim's snapshot missed (a commit
    //   of the same key in between) is a unique violation.
    // - an expired row, or the in-progress row of a crashed lease owner: replaced, but never a live
    //   completed row; when nothing is written it divides by zero (SQLSTATE 22012).
    // Either error makes PostgreSQL skip the COMMIT after it; the transaction rolls back and the
    // engine runs the request again, which then sees the stored row.
    // The naive-ORM guard (warnOnEmptyTransaction): a transaction gets a transaction id at its first
    // write, wherever on its connection that write was sent, and never for reads or advisory locks.
    // No id by the time a keyed request answered 2xx: the handler wrote nothing on this transaction,
    // typically because it wrote through another connection. One statement, no table touched.
    wroteNothing: {
      name: n('wrote_nothing'),
      text: 'select pg_current_xact_id_if_assigned() is null as empty',
    },
    completeAtCommit: (v: CompleteValues, replace: boolean) => ({
      statement: replace ? completeReplace : complete,
      params: [
        v.tenant,
        v.key,
        v.fingerprint,
        v.status,
        v.headers,
        v.body,
        v.bodyGzip,
        v.bodyEncoding,
        v.createdAt,
        v.expiresAt,
        v.lockId,
      ],
    }),
    // Lease mode: commit an in_progress row with an owner token, or take over an expired one.
    acquire: {
      name: n('acquire'),
      text: `with l as (select pg_try_advisory_xact_lock($1::int8) as locked),
             ins as (
               insert into ${t} (tenant, key, fingerprint, state, owner, lease_expires_at, created_at, expires_at, lock_id)
               select $2, $3, $4, 'in_progress', $5::uuid, $6::timestamptz, $7::timestamptz, $8::timestamptz, $1::int8
                 from l where l.locked
               on conflict (lock_id, tenant, key) do update
                  set fingerprint = excluded.fingerprint, state = 'in_progress', owner = excluded.owner,
                      lease_expires_at = excluded.lease_expires_at, status = null, headers = null, body = null,
                      body_gzip = null, body_encoding = null,
                      created_at = excluded.created_at, expires_at = excluded.expires_at
                where ${t}.expires_at <= excluded.created_at
                   or (${t}.state = 'in_progress' and ${t}.lease_expires_at <= excluded.created_at
                       and ${t}.fingerprint = excluded.fingerprint)
               returning 1)
             select (select locked from l) as locked, exists (select 1 from ins) as claimed`,
    },
    read: {
      name: n('read'),
      text: `select fingerprint, state, status, headers, body, body_gzip, body_encoding, expires_at <= $3::timestamptz as expired,
                    lease_expires_at <= $3::timestamptz as lease_expired
               from ${t} where lock_id = $4::int8 and tenant = $1 and key = $2`,
    },
    // Fencing: only the owner token may complete, renew or release. The token stays on the completed
    // row, so that a second complete by the same owner (a withLease handler that completed in its own
    // business transaction) is told apart from a takeover (completedBy) and is harmless.
    leaseComplete: {
      name: n('lease_complete'),
      // $5 through text, as in the insert above (postgres.js would store a JSON string)
      text: `update ${t} set state = 'completed', status = $4, headers = $5::text::jsonb, body = $6,
                    body_gzip = $8::bytea, body_encoding = $9, lease_expires_at = null
              where lock_id = $7::int8 and tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    // Read only when a complete or renew matched nothing: did this owner complete the key already?
    completedBy: {
      name: n('completed_by'),
      text: `select 1 from ${t}
              where lock_id = $4::int8 and tenant = $1 and key = $2 and owner = $3::uuid and state = 'completed'`,
    },
    renew: {
      name: n('renew'),
      text: `update ${t} set lease_expires_at = $4::timestamptz
              where lock_id = $5::int8 and tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    release: {
      name: n('release'),
      text: `delete from ${t} where lock_id = $4::int8 and tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    // Batched purge through the expires_at index; short transactions, no long locks.
    // Not named (prepared): its generic plan scans the whole table (bench/growth); a purge batch can
    // afford planning every time.
    purge: purge(t, false),
    purgeAsyncCommit: purge(t, true),
  };
}

/**
 * `surety_idem_<name>_<schema>`, or, when that is longer than the 63 bytes PostgreSQL keeps of a
 * name (NAMEDATALEN; schemas are ASCII), its first 52 characters and 10 hex digits of its
 * SHA-256: cut at 63, two long schemas with a common prefix got the same names, and the second
 * engine on a connection was refused ("Prepared statements must be unique").
 */
export function statementName(name: string, schema: string): string {
  const full = `surety_idem_${name}_${schema}`;
  if (full.length <= 63) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 10);
  return `${full.slice(0, 63 - hash.length - 1)}_${hash}`;
}

/**
 * One purge batch: up to $2 rows with `expires_at` in [$3, $1], oldest first; answers `n` (rows
 * deleted) and `last` (the newest `expires_at` deleted, as text: exact, for the next batch's $3).
 * - Deleted by ctid (a TID scan of rows this statement has just locked, so the ctids cannot move): a
 *   join on the primary key probed a random leaf of the largest index per row, and took twice as long
 *   per batch (bench/growth).
 * - From where the last batch stopped ($3): the index entries of rows already deleted stay until
 *   vacuum, and a scan from the oldest entry stepped over all of them, ~1 leaf per 360 rows deleted
 *   so far, in every batch (EXPLAIN BUFFERS: 790 leaves a batch after 280 k rows).
 * - asyncCommit: its transaction commits without waiting for the WAL flush. set_config(…, true)
 *   lasts until the statement's own (implicit) transaction ends, and PostgreSQL reads
 *   synchronous_commit when it commits; a batch lost to a crash leaves its keys for the next purge.
 */
function purge(t: string, asyncCommit: boolean): Statement {
  return {
    text: `with purged as (
             delete from ${t} where ctid = any (array(
               select ctid from ${t} where expires_at <= $1::timestamptz and expires_at >= $3::timestamptz
                order by expires_at limit $2 for update skip locked))${
                  asyncCommit
                    ? `
               and (select set_config('synchronous_commit', 'off', true)) = 'off'`
                    : ''
                }
             returning expires_at)
           select count(*)::int as n, max(expires_at)::text as last from purged`,
  };
}
