import { quoteSchema, type Statement } from '@surety/db';
import { statementName } from '../statements.js';

/** The statements of the effects outbox, built once per schema. */
export interface EffectStatements {
  enqueue: Statement;
  claim: Statement;
  giveBack: Statement;
  succeed: Statement;
  retry: Statement;
  fail: Statement;
  find: Statement;
}

/** What `claim` returns per effect. */
export interface ClaimedRow {
  id: string;
  tenant: string;
  name: string;
  key: string;
  payload: string;
  attempts: number;
  deadline_at: Date | string;
  created_at: Date | string;
}

export function effectStatements(schema: string): EffectStatements {
  const t = `${quoteSchema(schema)}.idempotency_effects`;
  const n = (name: string) => statementName(`effects_${name}`, schema);
  return {
    // One effect per (tenant, name, key): a second enqueue answers the first one's id. The second
    // select does not see the row the insert just made (one snapshot), so exactly one branch answers.
    enqueue: {
      name: n('enqueue'),
      text: `with ins as (
               insert into ${t} (tenant, name, key, payload, run_at, deadline_at, created_at)
               values ($1, $2, $3, $4::text::jsonb, $5::timestamptz, $6::timestamptz, $7::timestamptz)
               on conflict (tenant, name, key) do nothing
               returning id)
             select id::text as id, true as created from ins
             union all
             select id::text, false from ${t} where tenant = $1 and name = $2 and key = $3`,
    },
    // graphile-worker's claim shape: the due rows, oldest first, skipping those another worker holds,
    // marked running with this pass's owner and a lease (run_at = when it lapses, so a dead worker's
    // effect is due again then). Only the names this worker can run ($4).
    claim: {
      name: n('claim'),
      text: `with due as (
               select id from ${t}
                where state in ('pending', 'running') and run_at <= $1::timestamptz and name = any($4::text[])
                order by run_at limit $2
                for update skip locked)
             update ${t} e set state = 'running', owner = $3::uuid, attempts = e.attempts + 1, run_at = $5::timestamptz
               from due where e.id = due.id
             returning e.id::text as id, e.tenant, e.name, e.key, e.payload::text as payload, e.attempts,
                       e.deadline_at, e.created_at`,
    },
    // A claim whose answer was lost (its UPDATE committed, the connection dropped before the reply, as
    // in a failover): its effects are `running` under an owner no worker holds, until their lease.
    // Each claim has an owner of its own and set run_at to its lease end ($2), so both name exactly its
    // rows, through the due index; given back due at the claim's time ($3), the attempt uncounted.
    giveBack: {
      name: n('give_back'),
      text: `update ${t} set state = 'pending', owner = null, attempts = greatest(attempts - 1, 0), run_at = $3::timestamptz
              where state = 'running' and run_at = $2::timestamptz and owner = $1::uuid`,
    },
    // The result, fenced by the owner: in the transaction of the follow-up write, so both commit or
    // neither (0 rows: the lease lapsed and another worker took the effect; the caller rolls back).
    succeed: {
      name: n('succeed'),
      text: `update ${t} set state = 'succeeded', owner = null, result = $3::text::jsonb, finished_at = $4::timestamptz,
                    last_error = null
              where id = $1::int8 and owner = $2::uuid and state = 'running'`,
    },
    // A failed attempt with time left: pending again at the backoff's time.
    retry: {
      name: n('retry'),
      text: `update ${t} set state = 'pending', owner = null, run_at = $3::timestamptz, last_error = $4
              where id = $1::int8 and owner = $2::uuid and state = 'running'`,
    },
    // Given up: failed, with the last error, in the transaction of the effect's onFailed write.
    fail: {
      name: n('fail'),
      text: `update ${t} set state = 'failed', owner = null, finished_at = $3::timestamptz, last_error = $4
              where id = $1::int8 and owner = $2::uuid and state = 'running'`,
    },
    find: {
      name: n('find'),
      text: `select id::text as id, tenant, name, key, state, attempts, run_at, deadline_at, result::text as result,
                    last_error, created_at, finished_at
               from ${t} where tenant = $1 and name = $2 and key = $3`,
    },
  };
}
