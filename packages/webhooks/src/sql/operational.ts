// The state behind operational events' de-duplication (operational.ts; migration 000020): each
// statement flips a flag in the endpoint's row and returns a row only when an event is due, in the
// transaction that publishes it, so two workers never both publish the same change.
import type { Queryable } from '@surety/db';
import { lockId, type Names } from './schema.js';

export function operationalStatements({ schema, D, EP, st }: Names) {
  return {
    // A breaker that opened ($3 'open') is announced unless one was announced less than $5 ms ago
    // (a flapping breaker: one `endpoint.circuit_opened` per quiet window); a close ('close') only
    // when its opening was announced, so every announced open gets its close and no other.
    circuitNotice: st(
      'circuit_notice',
      `update ${EP} e set circuit_notified = ($3 = 'open'),
              circuit_notified_at = case when $3 = 'open' then $4::timestamptz else e.circuit_notified_at end
        where e.tenant = $1 and e.id = $2
          and (($3 = 'open' and not e.circuit_notified
                and (e.circuit_notified_at is null or e.circuit_notified_at <= $4::timestamptz - $5::float8 * interval '1 millisecond'))
               or ($3 = 'close' and e.circuit_notified))
       returning e.url, e.circuit_failures, e.circuit_opened_at, e.circuit_probe_at`,
    ),
    // Backlog crossings, edge-triggered with hysteresis: an endpoint whose pending deliveries reach
    // $1 is flagged (`endpoint.backlog_exceeded`) and stays flagged until they fall to $2 or fewer
    // (`endpoint.backlog_cleared`), so a backlog hovering around the threshold announces nothing
    // more. The counts come from the pending index, grouped per endpoint: one pass over the pending
    // rows per run.
    backlogCrossings: st(
      'backlog_crossings',
      `with counts as (
         select d.tenant, d.endpoint_id, count(*)::int as n from ${D} d where d.status = 'pending'
          group by d.tenant, d.endpoint_id),
       x as (
         select e.tenant, e.id, coalesce(c.n, 0) as n, not e.backlog_alerted as alerted
           from ${EP} e left join counts c on c.tenant = e.tenant and c.endpoint_id = e.id
          where (not e.backlog_alerted and c.n >= $1) or (e.backlog_alerted and coalesce(c.n, 0) <= $2)
          order by e.tenant, e.id for update of e)
       update ${EP} e set backlog_alerted = x.alerted from x where e.tenant = x.tenant and e.id = x.id
       returning e.tenant, e.id, e.url, x.n as pending, x.alerted as exceeded`,
    ),
    // Secrets that stop being used within $2 ms of $1 (a rotation's overlap ending), each expiry
    // announced once: `secret_notified` keeps the expiries in the window that were announced (so it
    // stays as short as the window's list). Only endpoints with more than one secret can have one
    // that expires (a rotation keeps the old one beside the new). One event per endpoint and run,
    // for the earliest expiry not announced yet.
    secretsExpiring: st(
      'secrets_expiring',
      `with s as (
         select e.tenant, e.id, array_agg(x.at order by x.at) as ats
           from ${EP} e cross join lateral (
             select distinct (v ->> 'expiresAt')::timestamptz as at from jsonb_array_elements(e.secrets) as j(v)
              where v ->> 'expiresAt' is not null) x
          where jsonb_array_length(e.secrets) > 1 and e.status = 'enabled'
            and x.at > $1::timestamptz and x.at <= $1::timestamptz + $2::float8 * interval '1 millisecond'
          group by e.tenant, e.id),
       n as (
         select s.tenant, s.id, s.ats,
                (select min(a) from unnest(s.ats) a where not (a = any (coalesce(e.secret_notified, '{}')))) as expires_at
           from s join ${EP} e on e.tenant = s.tenant and e.id = s.id)
       update ${EP} e set secret_notified = n.ats from n
        where e.tenant = n.tenant and e.id = n.id and n.expires_at is not null
       returning e.tenant, e.id, e.url, n.expires_at`,
    ),
    // Throttles that ended long ago leave the claim's partial index (it reads only live ones then).
    throttlesEnded: st(
      'throttles_ended',
      `update ${EP} set throttle_until = null, throttle_pause_until = null
        where throttle_until is not null and throttle_until < $1::timestamptz`,
    ),
    // One monitor run at a time per schema, across processes; the others skip theirs.
    monitorLock: st(
      'monitor_lock',
      `select pg_try_advisory_xact_lock(${lockId(`surety.webhooks.monitor:${schema}`)}) as locked`,
    ),
  };
}

type OperationalStatements = ReturnType<typeof operationalStatements>;

/** Flips the breaker's announcement flag; the endpoint's row when an event is due, else undefined. */
export async function circuitNotice(
  q: Queryable,
  st: OperationalStatements,
  input: { tenant: string; id: string; action: 'open' | 'close'; nowIso: string; quietMs: number },
) {
  const { rows } = await q.query<{
    url: string;
    circuit_failures: number;
    circuit_opened_at: Date | null;
    circuit_probe_at: Date | null;
  }>(st.circuitNotice, [input.tenant, input.id, input.action, input.nowIso, input.quietMs]);
  return rows[0];
}

export async function backlogCrossings(
  q: Queryable,
  st: OperationalStatements,
  input: { high: number; low: number },
) {
  const { rows } = await q.query<{
    tenant: string;
    id: string;
    url: string;
    pending: number;
    exceeded: boolean;
  }>(st.backlogCrossings, [input.high, input.low]);
  return rows;
}

export async function secretsExpiring(
  q: Queryable,
  st: OperationalStatements,
  input: { nowIso: string; noticeMs: number },
) {
  const { rows } = await q.query<{ tenant: string; id: string; url: string; expires_at: Date }>(
    st.secretsExpiring,
    [input.nowIso, input.noticeMs],
  );
  return rows;
}

export async function endThrottles(q: Queryable, st: OperationalStatements, input: { beforeIso: string }) {
  await q.query(st.throttlesEnded, [input.beforeIso]);
}

export async function monitorLock(q: Queryable, st: OperationalStatements): Promise<boolean> {
  const { rows } = await q.query<{ locked: boolean }>(st.monitorLock, []);
  return rows[0]!.locked;
}
