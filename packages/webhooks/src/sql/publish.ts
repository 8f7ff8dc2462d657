// The outbox write (Webhooks.publish) and the event-level statements.
import type { Queryable } from '@surety/db';
import { idTimePrefix } from '../ids.js';
import type { Names } from './schema.js';
import { RANDOM_ID_TAIL } from './values.js';

/**
 * Who an event reaches besides its type (docs/applications.md): `tenant`, the tenant's endpoints of
 * no application; `application`, that application's ($10) endpoints; `endpoint`, the one endpoint
 * named ($8), of the application if one is given, the event then taking the endpoint's application.
 * One statement per audience, so each reads its endpoints from the (tenant, application_id) index.
 */
export type Audience = 'tenant' | 'application' | 'endpoint';

const AUDIENCE: Record<Audience, { endpoints: string; application: (EP: string) => string }> = {
  tenant: { endpoints: 'e.application_id is null', application: () => '$10::text' },
  application: { endpoints: 'e.application_id = $10', application: () => '$10::text' },
  endpoint: {
    endpoints: '($10::text is null or e.application_id = $10)',
    application: (EP) =>
      `coalesce($10::text, (select application_id from ${EP} where tenant = $1 and id = $8))`,
  },
};

export function publishStatements({ qs, EV, D, EP, K, st }: Names) {
  // The outbox write: the event and one delivery per subscribed enabled endpoint, or to the one
  // endpoint named ($8, test events: named, so subscribed or not). One round trip.
  // An id the caller chose ($11) is also written to the event-id table, whose primary key keeps
  // it unique per tenant across the events' partitions (migration 000015).
  // An endpoint with a filter (migration 000017) gets the event only when its jsonpath predicate
  // holds on { type, resource, data } (src/filter/); the document is built once per statement (an
  // uncorrelated subquery) and only when some endpoint has a filter. $13 false (a payload nested
  // past FILTER_MAX_DATA_DEPTH, which jsonb may refuse to parse): no filtered endpoint gets it.
  // A named endpoint ($8) gets the event whatever its filter, as whatever its event types.
  // A delivery to an endpoint whose circuit breaker is open waits behind its probe (hold_until).
  // A delivery to a poll endpoint is due at 'infinity': no worker claims it, its consumer reads it
  // (poll/, migration 000021).
  // Each delivery gets a random time-ordered id (`dlv_`, its time from $7 made by the caller ($12),
  // then RANDOM_ID_TAIL: newId's form, as webhook_new_id of migration 000012 makes it) and the event's
  // sequence, which orders an ordered endpoint's queue (ids are random within a millisecond), and
  // the event's created_at, which names the events partition its event is read from.
  // No NOTIFY in here: a transaction that notifies holds PostgreSQL's notify-queue lock from its
  // commit record to the end of COMMIT, so every publishing transaction would commit one at a
  // time (measured: half the publish rate). Webhooks wakes workers after COMMIT instead.
  const publish = (audience: Audience) =>
    st(
      audience === 'tenant' ? 'publish' : `publish_${audience}`,
      `with ev as (
         insert into ${EV} (tenant, id, type, api_version, resource, sequence, data, created_at, trace_context,
                application_id)
         values ($1, $2, $3, $4, $5, nextval('${qs}.webhook_event_sequence'), $6, $7, $9::text::jsonb,
                ${AUDIENCE[audience].application(EP)})
         returning sequence, application_id),
       k as (insert into ${K} (tenant, id, created_at) select $1, $2, $7 where $11::bool returning 1),
       d as (
         insert into ${D} (id, tenant, endpoint_id, event_id, status, ordered, next_attempt_at, created_at, sequence,
                           event_created_at)
         select $12::text || ${RANDOM_ID_TAIL}, $1, e.id, $2, 'pending', e.ordered,
                case when e.kind = 'poll' then 'infinity'::timestamptz else greatest($7, e.circuit_hold_until) end,
                $7, ev.sequence, $7
           from ${EP} e cross join ev
          where e.tenant = $1 and e.status = 'enabled' and ${AUDIENCE[audience].endpoints}
            and (case when $8::text is null
                      then e.event_types && array['*', $3]::text[]
                           and (e.filter_path is null or $13::bool and jsonb_path_match(
                                  (select jsonb_build_object('type', $3::text, 'resource', $5::text, 'data', $6::text::jsonb)),
                                  e.filter_path, '{}', true))
                      else e.id = $8 end)
            and ($14::text is null or e.id <> $14)
         returning 1)
       select (select sequence::text from ev) as sequence, (select count(*) from d)::int as deliveries,
              (select application_id from ev) as application_id`,
    );
  return {
    publish: {
      tenant: publish('tenant'),
      application: publish('application'),
      endpoint: publish('endpoint'),
    },
  };
}

/** Writes the event and its deliveries; `deliveries`: how many were queued. */
export async function insertEvent(
  q: Queryable,
  st: ReturnType<typeof publishStatements>,
  input: {
    tenant: string;
    id: string;
    type: string;
    apiVersion: string;
    resource: string | null;
    data: string;
    createdAt: string;
    endpointId: string | null;
    /** The publisher's trace context as JSON (tracing.ts), or null. */
    traceContext: string | null;
    /** The application's id (resolved by the caller), or null for the tenant's own event. */
    applicationId: string | null;
    /** The caller chose the id (kept unique in the event-id table); false for a generated one. */
    chosenId: boolean;
    /** Whether filters may be evaluated on the payload (not nested past FILTER_MAX_DATA_DEPTH). */
    filterable: boolean;
    /** An endpoint that does not get it (the one an operational event is about); null: none. */
    exceptEndpointId: string | null;
  },
): Promise<{ sequence: string; deliveries: number; applicationId: string | null }> {
  const audience: Audience =
    input.endpointId !== null ? 'endpoint' : input.applicationId !== null ? 'application' : 'tenant';
  const { rows } = await q.query<{ sequence: string; deliveries: number; application_id: string | null }>(
    st.publish[audience],
    [
      input.tenant,
      input.id,
      input.type,
      input.apiVersion,
      input.resource,
      input.data,
      input.createdAt,
      input.endpointId,
      input.traceContext,
      input.applicationId,
      input.chosenId,
      idTimePrefix('dlv', Date.parse(input.createdAt)),
      input.filterable,
      input.exceptEndpointId,
    ],
  );
  const r = rows[0]!;
  return { sequence: r.sequence, deliveries: r.deliveries, applicationId: r.application_id };
}
