// Re-queueing: an event again (Webhooks.replayEvent), an endpoint's failed deliveries
// (Webhooks.recoverEndpoint). Each wakes the workers in the same statement when it queued any.
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';

type Tables = Pick<Names, 'qs' | 'EP' | 'EV' | 'D'>;

/**
 * Queues the event again to each subscribed enabled endpoint (or to `endpointId` only) of the
 * event's audience: its application's endpoints, or the tenant's own for an event of none
 * (publish's rule, docs/applications.md), so a named endpoint of another application gets nothing.
 * A replay to every endpoint honours their filters (publish's rule); a named endpoint gets the
 * event whatever its filter. `filterable` false (a payload nested too deep to filter, read by the
 * caller): no filtered endpoint gets it. How many. A poll endpoint's delivery is due at 'infinity'
 * (its consumer reads it: poll/). Each delivery takes a fresh number from the event sequence: on an ordered endpoint a replay
 * queues behind what is pending (migration 000012).
 */
export async function insertReplay(
  q: Queryable,
  t: Tables,
  input: {
    tenant: string;
    eventId: string;
    endpointId: string | null;
    nowIso: string;
    channel: string;
    filterable: boolean;
  },
): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `with ev as (select id, type, resource, data, application_id, created_at from ${t.EV} where tenant = $1 and id = $2),
     d as (
       insert into ${t.D} (id, tenant, endpoint_id, event_id, status, ordered, next_attempt_at, created_at, sequence,
                           event_created_at)
       select ${t.qs}.webhook_new_id('dlv', $4), $1, e.id, ev.id, 'pending', e.ordered,
              case when e.kind = 'poll' then 'infinity'::timestamptz else $4::timestamptz end, $4,
              nextval('${t.qs}.webhook_event_sequence'), ev.created_at
         from ${t.EP} e, ev
        where e.tenant = $1 and e.status = 'enabled' and e.event_types && array['*', ev.type]::text[]
          and e.application_id is not distinct from ev.application_id
          and (case when $3::text is null
                    then e.filter_path is null or $6::bool and jsonb_path_match(
                           jsonb_build_object('type', ev.type, 'resource', ev.resource, 'data', ev.data::jsonb),
                           e.filter_path, '{}', true)
                    else e.id = $3 end)
       returning 1),
     n as (select pg_notify($5, '') from (select 1 from d limit 1) x)
     select (select count(*) from d)::int as n, (select count(*) from n)::int as notified, (select count(*) from ev)::int as found`,
    [input.tenant, input.eventId, input.endpointId, input.nowIso, input.channel, input.filterable],
  );
  return rows[0]!.n;
}

/** The event's payload text, to check it can be filtered; undefined when it is not the tenant's. */
export async function selectEventData(
  q: Queryable,
  t: Pick<Names, 'EV'>,
  input: { tenant: string; eventId: string },
): Promise<string | undefined> {
  const { rows } = await q.query<{ data: string }>(`select data from ${t.EV} where tenant = $1 and id = $2`, [
    input.tenant,
    input.eventId,
  ]);
  return rows[0]?.data;
}

/** Puts the endpoint's failed deliveries created since `sinceIso` back to pending, due now; how many. */
export async function requeueFailed(
  q: Queryable,
  t: Pick<Names, 'D'>,
  input: { tenant: string; endpointId: string; sinceIso: string; nowIso: string; channel: string },
): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `with d as (
       update ${t.D} set status = 'pending', attempts = 0, completed_at = null,
              -- a poll endpoint's delivery (due at 'infinity') stays its consumer's to read, at a new
              -- position (past the cursor) given by the next read
              next_attempt_at = case when next_attempt_at = 'infinity' then next_attempt_at else $4::timestamptz end,
              poll_position = null
        where tenant = $1 and endpoint_id = $2 and status = 'failed' and created_at >= $3
       returning 1),
     n as (select pg_notify($5, '') from (select 1 from d limit 1) x)
     select (select count(*) from d)::int as n, (select count(*) from n)::int as notified`,
    [input.tenant, input.endpointId, input.sinceIso, input.nowIso, input.channel],
  );
  return rows[0]!.n;
}
