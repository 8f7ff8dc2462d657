// Endpoint health, the circuit breaker and disabling, as statements (health.ts drives them).
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

export function healthStatements({ D, EP, st }: Names) {
  return {
    // Endpoint health for a batch, rows locked in key order (no deadlock between workers). Skips the
    // write when nothing would change, so a healthy hot endpoint is not rewritten on every batch.
    // The same statement runs the endpoint's circuit breaker (docs/decisions.md): $6 is each
    // endpoint's failed attempts after the batch's last success; at $8 consecutive ones the breaker
    // opens. Its pending, unleased deliveries are then moved, in this statement, behind one probe:
    // the first (the head, for an ordered endpoint; else the earliest due, whatever its own schedule
    // said: the breaker is the backoff now) to the probe time, the others to `hold_until`,
    // $11 ms (the hold horizon) after it. A failed probe moves only the next probe's row (the
    // wait doubles from $9 ms up to $10 ms); the held rows are moved again only when the next probe
    // would come within $12 ms (one attempt's duration) of hold_until, so an outage rewrites them
    // once per horizon. A success closes the breaker and makes every pending delivery of the endpoint
    // due at once (also those whose own schedule had put them past the hold). Attempts are not
    // counted: the claim counts them, and held rows are not claimed. Never a write per poll.
    health: st(
      'health',
      `with h as (
         select * from unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::bool[], $6::int[])
           as h(tenant, endpoint_id, succeeded_at, failed_at, gone, failures)),
       locked as (
         select e.tenant, e.id, e.circuit_failures, e.circuit_opened_at, e.circuit_probe_at, e.circuit_probes,
                e.circuit_hold_until
           from ${EP} e join h on e.tenant = h.tenant and e.id = h.endpoint_id
          where h.failed_at is not null or e.failing_since is not null or e.last_success_at is null
             or e.last_success_at < h.succeeded_at - interval '1 second' or e.circuit_failures > 0
             or e.circuit_opened_at is not null
          order by e.tenant, e.id for update of e),
       c as (
         select l.*, h.succeeded_at, h.failed_at, h.gone,
                case when h.succeeded_at is not null then h.failures
                     else l.circuit_failures + h.failures end as failures
           from locked l join h on h.tenant = l.tenant and h.endpoint_id = l.id),
       s as (
         select c.*, case
             when c.failures >= $8::bigint and (c.circuit_opened_at is null or c.succeeded_at is not null) then 'open'
             when c.circuit_opened_at is not null and c.succeeded_at is not null then 'close'
             when c.circuit_opened_at is not null and c.failures > c.circuit_failures
                  and $7::timestamptz >= c.circuit_probe_at then 'probe_failed'
             when c.circuit_opened_at is not null and c.failures > c.circuit_failures then 'hold'
             end as action
           from c),
       n as (
         select s.*,
                case when s.action in ('open', 'close') then 0
                     when s.action = 'probe_failed' then s.circuit_probes + 1
                     else s.circuit_probes end as probes,
                case when s.action = 'open' then $7::timestamptz + $9::float8 * interval '1 millisecond'
                     when s.action = 'probe_failed' then $7::timestamptz
                          + least($10::float8, $9::float8 * power(2, least(s.circuit_probes + 1, 60))) * interval '1 millisecond'
                     when s.action = 'close' then null
                     else s.circuit_probe_at end as probe_at,
                case when s.action = 'open' then $7::timestamptz
                     when s.action = 'close' then null
                     else s.circuit_opened_at end as opened_at
           from s),
       t as (
         select n.*,
                case when n.action = 'open'
                       or (n.action = 'probe_failed'
                           and n.circuit_hold_until < n.probe_at + $12::float8 * interval '1 millisecond')
                       then n.probe_at + $11::float8 * interval '1 millisecond'
                     when n.action = 'close' then null
                     else n.circuit_hold_until end as hold_until
           from n),
       upd as (
         update ${EP} e set
           last_success_at = coalesce(greatest(e.last_success_at, t.succeeded_at), e.last_success_at),
           last_failure_at = coalesce(greatest(e.last_failure_at, t.failed_at), e.last_failure_at),
           failing_since = case when t.succeeded_at is not null then null
                                when t.failed_at is not null then coalesce(e.failing_since, t.failed_at)
                                else e.failing_since end,
           circuit_failures = t.failures, circuit_opened_at = t.opened_at, circuit_probe_at = t.probe_at,
           circuit_probes = t.probes, circuit_hold_until = t.hold_until
           from t
          where e.tenant = t.tenant and e.id = t.id
          returning e.tenant, e.id, e.status, e.failing_since, t.gone, t.action),
       cand as (
         select d.id, case when row_number() over (partition by d.tenant, d.endpoint_id
                                 order by case when d.ordered then d.sequence end, d.next_attempt_at, d.id) = 1
                           then t.probe_at else t.hold_until end as due,
                d.next_attempt_at
           from t join ${D} d on d.tenant = t.tenant and d.endpoint_id = t.id and d.status = 'pending'
          where t.action in ('open', 'probe_failed', 'hold')
            and (d.lease_until is null or d.lease_until <= $7) and d.next_attempt_at <= t.hold_until),
       held as (
         update ${D} d set next_attempt_at = cand.due from cand
          where d.id = cand.id and cand.due <> cand.next_attempt_at
            and d.status = 'pending' and (d.lease_until is null or d.lease_until <= $7)
         returning d.tenant, d.endpoint_id),
       released as (
         update ${D} d set next_attempt_at = $7 from t
          where t.action = 'close' and d.tenant = t.tenant and d.endpoint_id = t.id and d.status = 'pending'
            and (d.lease_until is null or d.lease_until <= $7)
            and d.next_attempt_at > $7
         returning d.tenant, d.endpoint_id)
       select u.tenant, u.id, u.status, u.failing_since, u.gone, u.action,
              (select count(*) from held x where x.tenant = u.tenant and x.endpoint_id = u.id)::int as held,
              (select count(*) from released x where x.tenant = u.tenant and x.endpoint_id = u.id)::int as released
         from upd u`,
    ),
    disable: st(
      'disable',
      `with e as (
         update ${EP} set status = 'disabled', disabled_reason = $3, disabled_at = $4, version = version + 1,
                updated_at = $4
          where tenant = $1 and id = $2 and status = 'enabled'
         returning tenant, id, url),
       f as (
         update ${D} d set status = 'failed', completed_at = $4, last_error = 'endpoint_disabled'
           from e where d.tenant = e.tenant and d.endpoint_id = e.id and d.status = 'pending' and d.locked_by is null
         returning 1)
       select e.url, (select count(*) from f)::int as failed from e`,
    ),
  };
}

type HealthStatements = ReturnType<typeof healthStatements>;

/** One endpoint's share of a batch of outcomes. */
export interface EndpointBatch {
  tenant: string;
  id: string;
  /** Latest success and failure start times (ISO), null without one. */
  ok: string | null;
  fail: string | null;
  /** A 410 Gone was among them. */
  gone: boolean;
  /** Failed attempts after the batch's last success. */
  failures: number;
}

export type BreakerAction = 'open' | 'close' | 'probe_failed' | 'hold';

export interface HealthRow {
  tenant: string;
  id: string;
  status: string;
  failing_since: Date | null;
  gone: boolean;
  action: BreakerAction | null;
  held: number;
  released: number;
}

/** Records a batch's health, endpoints in key order, and runs their breakers (see the statement). */
export async function recordHealth(
  q: Queryable,
  st: HealthStatements,
  input: {
    endpoints: readonly EndpointBatch[];
    nowIso: string;
    circuitThreshold: number;
    circuitProbeMs: number;
    circuitMaxProbeMs: number;
    holdHorizonMs: number;
    probeMarginMs: number;
  },
): Promise<HealthRow[]> {
  const hs = input.endpoints;
  const { rows } = await q.query<HealthRow>(st.health, [
    hs.map((h) => h.tenant),
    hs.map((h) => h.id),
    hs.map((h) => h.ok),
    hs.map((h) => h.fail),
    hs.map((h) => h.gone),
    hs.map((h) => h.failures),
    input.nowIso,
    input.circuitThreshold,
    input.circuitProbeMs,
    input.circuitMaxProbeMs,
    input.holdHorizonMs,
    input.probeMarginMs,
  ]);
  return rows;
}

/** Disables an enabled endpoint and fails its unleased pending deliveries; undefined when it was not enabled. */
export async function disableEndpointRow(
  q: Queryable,
  st: HealthStatements,
  input: { tenant: string; id: string; reason: string; nowIso: string },
): Promise<{ url: string; failed: number } | undefined> {
  const { rows } = await q.query<{ url: string; failed: number }>(st.disable, [
    input.tenant,
    input.id,
    input.reason,
    input.nowIso,
  ]);
  return rows[0];
}
