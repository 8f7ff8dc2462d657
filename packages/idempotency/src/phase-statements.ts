import { quoteSchema, type Statement } from '@surety/db';
import { CLAIM_ROW_JSON, statementName } from './statements.js';

/** The statements of phased operations (phases.ts, completer.ts), built once per schema. */
export interface PhaseStatements {
  acquire: Statement;
  record: Statement;
  recordAtCommit: Statement;
  owned: Statement;
  pause: Statement;
  abandon: Statement;
  stuck: Statement;
}

export function phaseStatements(schema: string): PhaseStatements {
  const t = `${quoteSchema(schema)}.idempotency_keys`;
  const n = (name: string) => statementName(name, schema);
  // A replaced (expired) row starts over: no recovery point, no phase state.
  const fresh = `${t}.expires_at <= excluded.created_at`;
  // The row of (tenant $1, key $2) while token $3 owns it in progress ($4: its lock id).
  const mine = `lock_id = $4::int8 and tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`;
  const recorded = `phase_state = coalesce(phase_state, '{}'::jsonb) || $6::text::jsonb,
                    recovery_point = case when phase_state -> $5::text is not null then recovery_point else $5 end`;
  return {
    // Lease mode with an operation and its input: commit an in_progress row with an owner token, or
    // take over one whose lease lapsed (same fingerprint), keeping its recovery point and phase
    // state, so the new owner resumes; an expired row is replaced and starts over. Returns the phase
    // state the new owner resumes from.
    // What a request that does not acquire needs comes back in the same statement, not in round
    // trips of their own: `current`, the key's row as this statement's snapshot saw it (a replay,
    // a mismatch, in flight; a row committed after the snapshot is read again by the engine), and
    // `former`, the live rows under the key's former form's lock id ($11, null without one; matched
    // to the key in JS, as the atomic claim's). Both in the claim's JSON row shape (replay.ts's
    // toRow). While a former row lives nothing is written under the new form: the engine decides
    // from it. A scalar, not an int8[] of all former forms: with an array of unknown length the
    // generic plan costs ten index probes, and PostgreSQL planned the statement anew on every call.
    acquire: {
      name: n('phase_acquire'),
      text: `with l as (select pg_try_advisory_xact_lock($1::int8) as locked),
             c as (select ${CLAIM_ROW_JSON} as row from ${t} k where k.lock_id = $1::int8 and k.tenant = $2 and k.key = $3),
             f as (
               select ${CLAIM_ROW_JSON} as row from ${t} k
                where k.lock_id = $11::int8 and k.tenant = $2 and k.expires_at > $7::timestamptz),
             ins as (
               insert into ${t} (tenant, key, fingerprint, state, owner, lease_expires_at, created_at, expires_at,
                                 lock_id, operation, input)
               select $2, $3, $4, 'in_progress', $5::uuid, $6::timestamptz, $7::timestamptz, $8::timestamptz,
                      $1::int8, $9, $10::text::jsonb
                 from l where l.locked and not exists (select 1 from f)
               on conflict (lock_id, tenant, key) do update
                  set fingerprint = excluded.fingerprint, state = 'in_progress', owner = excluded.owner,
                      lease_expires_at = excluded.lease_expires_at, status = null, headers = null, body = null,
                      body_gzip = null, body_encoding = null, operation = excluded.operation,
                      input = case when ${fresh} then excluded.input else coalesce(${t}.input, excluded.input) end,
                      recovery_point = case when ${fresh} then null else ${t}.recovery_point end,
                      phase_state = case when ${fresh} then null else ${t}.phase_state end,
                      created_at = case when ${fresh} then excluded.created_at else ${t}.created_at end,
                      expires_at = case when ${fresh} then excluded.expires_at else ${t}.expires_at end
                where ${fresh}
                   or (${t}.state = 'in_progress' and ${t}.lease_expires_at <= excluded.created_at
                       and ${t}.fingerprint = excluded.fingerprint)
               returning phase_state::text as phase_state, recovery_point)
             select (select locked from l) as locked, exists (select 1 from ins) as claimed,
                    (select phase_state from ins) as phase_state,
                    (select recovery_point from ins) as recovery_point,
                    (select row from c) as current, (select json_agg(f.row) from f) as former`,
    },
    // Phases' results, fenced by the owner token. $6 is a JSON object
    // of results by phase name (an external phase's result travels with the next local phase's),
    // $5 the recovery point: the last of them, unless it was recorded already (a give-back that
    // repeats results a commit with a lost answer did record keeps the later recovery point).
    // The lease is left alone (the run's renewer keeps it): renewed here, lease_expires_at, a
    // column of idempotency_keys_stuck, changed on every record, which made each one a non-HOT
    // update with new entries in all three indexes (bench/idempotency: 0 HOT updates in 30,000).
    record: {
      name: n('phase_record'),
      text: `update ${t} set ${recorded} where ${mine}`,
    },
    // `record` sent with a local phase's COMMIT (Tx.atCommit), so its record costs no round trip:
    // when the token no longer owns the key it divides by zero (SQLSTATE 22012), PostgreSQL skips the
    // COMMIT, and the phase's writes roll back (the engine reports the lease lost).
    recordAtCommit: {
      name: n('phase_record_commit'),
      text: `with r as (
               update ${t} set ${recorded} where ${mine} returning 1)
             select 1 / count(*)::int as recorded from r`,
    },
    // Whether token $3 still owns the key in progress: read when a local phase's COMMIT failed with
    // 22012, which `recordAtCommit` raises for a lost lease and a deferred trigger of the phase's
    // own tables may raise too.
    owned: {
      name: n('phase_owned'),
      text: `select 1 from ${t} where ${mine}`,
    },
    // A run that failed after a phase committed: keep the row and its phases, and let the lease lapse
    // at $5 so a retry (at once) or the completer (after its grace) resumes it.
    pause: {
      name: n('phase_pause'),
      text: `update ${t} set lease_expires_at = $5::timestamptz
              where lock_id = $4::int8 and tenant = $1 and key = $2 and owner = $3::uuid and state = 'in_progress'`,
    },
    // A run's key given back (it failed, answered non-final, or its acquire's answer was lost):
    // released when it holds no phase (a fresh key, or one that recorded nothing), else its lease
    // lapses at $5 with its phases kept, as `pause`. The store decides, not the run: a phase whose
    // COMMIT answer was lost is recorded though the run never learnt it. Fenced by the token: an
    // acquire that did not commit matches nothing.
    abandon: {
      name: n('phase_abandon'),
      text: `with gone as (
               delete from ${t} where lock_id = $4::int8 and tenant = $1 and key = $2 and owner = $3::uuid
                  and state = 'in_progress' and phase_state is null returning 1)
             update ${t} set lease_expires_at = $5::timestamptz
              where lock_id = $4::int8 and tenant = $1 and key = $2 and owner = $3::uuid
                and state = 'in_progress' and phase_state is not null`,
    },
    // The completer's batch: operations in progress whose lease lapsed before $1, not expired at $2.
    stuck: {
      name: n('phase_stuck'),
      text: `select tenant, key, fingerprint, operation, input::text as input from ${t}
              where state = 'in_progress' and operation is not null and lease_expires_at <= $1::timestamptz
                and expires_at > $2::timestamptz
              order by lease_expires_at limit $3`,
    },
  };
}
