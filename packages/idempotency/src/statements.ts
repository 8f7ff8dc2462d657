import { quoteSchema, type Statement } from '@surety/db';

/** The statements of the store, built once per schema. Every value is a bound parameter. */
export interface Statements {
  claim: Statement;
  complete: Statement;
  acquire: Statement;
  read: Statement;
  leaseComplete: Statement;
  renew: Statement;
  release: Statement;
  purge: Statement;
}

export function statements(schema: string): Statements {
  const t = `${quoteSchema(schema)}.idempotency_keys`;
  const n = (name: string) => `surety_idem_${name}_${schema}`.slice(0, 63);
  return {
    // Atomic mode, inside the caller's transaction: take the key's advisory lock without waiting
    // and read any stored row, in one round trip. The lock is held until COMMIT/ROLLBACK, so a
    // second request with the same key gets `locked = false` at once (409) instead of queueing on
    // a row lock. The snapshot of this statement may predate a commit that released the lock; the
    // primary key catches that case at `complete` (0 rows) and the engine retries the claim.
    claim: {
      name: n('claim'),
      text: `select pg_try_advisory_xact_lock($1::int8) as locked, k.fingerprint, k.state, k.status,
                    k.headers, k.body, k.expires_at <= $4::timestamptz as expired,
                    k.lease_expires_at <= $4::timestamptz as lease_expired
               from (select 1) as one
               left join ${t} k on k.tenant = $2 and k.key = $3`,
    },
    // Atomic mode: the completed row, written in the same transaction as the business write. An
    // expired row, or an in-progress row of a crashed lease owner, is replaced; a live completed
    // row is not (0 rows → the claim raced with a commit; the engine retries).
    complete: {
      name: n('complete'),
      text: `insert into ${t} (tenant, key, fingerprint, state, status, headers, body, created_at, expires_at)
             values ($1, $2, $3, 'completed', $4, $5::jsonb, $6, $7::timestamptz, $8::timestamptz)
             on conflict (tenant, key) do update
                set fingerprint = excluded.fingerprint, state = 'completed', owner = null,
                    lease_expires_at = null, status = excluded.status, headers = excluded.headers,
                    body = excluded.body, created_at = excluded.created_at, expires_at = excluded.expires_at
              where ${t}.expires_at <= excluded.created_at
                 or (${t}.state = 'in_progress' and ${t}.lease_expires_at <= excluded.created_at)`,
    },
    // Lease mode: commit an in_progress row with an owner token, or take over an expired one.
    acquire: {
      name: n('acquire'),
      text: `with l as (select pg_try_advisory_xact_lock($1::int8) as locked),
             ins as (
               insert into ${t} (tenant, key, fingerprint, state, owner, lease_expires_at, created_at, expires_at)
               select $2, $3, $4, 'in_progress', $5::uuid, $6::timestamptz, $7::timestamptz, $8::timestamptz
                 from l where l.locked
               on conflict (tenant, key) do update
                  set fingerprint = excluded.fingerprint, state = 'in_progress', owner = excluded.owner,
                      lease_expires_at = excluded.lease_expires_at, status = null, headers = null, body = null,
                      created_at = excluded.created_at, expires_at = excluded.expires_at
                where ${t}.expires_at <= excluded.created_at
                   or (${t}.state = 'in_progress' and ${t}.lease_expires_at <= excluded.created_at
                       and ${t}.fingerprint = excluded.fingerprint)
               returning 1)
             select (select locked from l) as locked, exists (select 1 from ins) as claimed`,
    },
    read: {
      name: n('read'),
      text: `select fingerprint, state, status, headers, body, expires_at <= $3::timestamptz as expired,
                    lease_expires_at <= $3::timestamptz as lease_expired
               from ${t} where tenant = $1 and key = $2`,
    },
    // Fencing: only the owner token may complete, renew or release.
    leaseComplete: {
      name: n('lease_complete'),
      text: `update ${t} set state = 'completed', status = $4, headers = $5::jsonb, body = $6,
                    owner = null, lease_expires_at = null
              where tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    renew: {
      name: n('renew'),
      text: `update ${t} set lease_expires_at = $4::timestamptz
              where tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    release: {
      name: n('release'),
      text: `delete from ${t} where tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    // Batched purge through the expires_at index; short transactions, no long locks.
    purge: {
      name: n('purge'),
      text: `delete from ${t} k using (
               select tenant, key from ${t} where expires_at <= $1::timestamptz
                order by expires_at limit $2 for update skip locked) as old
              where k.tenant = old.tenant and k.key = old.key`,
    },
  };
}
