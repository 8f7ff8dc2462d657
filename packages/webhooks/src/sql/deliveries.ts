// Delivery and attempt reads (listDeliveries, listAttempts).
import type { Queryable } from '@surety/db';
import type { KeyedRow } from '../reads/pages.js';
import { applicationIdOf } from './applications.js';
import type { Names } from './schema.js';
import { createdAtUs, eventTime } from './values.js';

export interface DeliveryRow {
  id: string;
  event_id: string;
  type: string | null;
  endpoint_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  completed_at: Date | null;
  last_status: number | null;
  last_error: string | null;
}

export interface AttemptRow {
  id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  status: number | null;
  response_excerpt: string | null;
  error_code: string | null;
  error_message: string | null;
}

/**
 * A tenant's deliveries, newest first (created_at, then id), of an endpoint and/or an event,
 * optionally in one status and to the endpoints of one application (id or uid), from after the
 * (created_at, id) of `after` when given. By time, not by id alone: ids migrated from the counter
 * (`dlv_60`, migration 000012) sort after the new ones.
 */
export async function selectDeliveries(
  q: Queryable,
  t: Pick<Names, 'D' | 'EV' | 'EP' | 'AP'>,
  input: {
    tenant: string;
    limit: number;
    endpointId: string | null;
    eventId: string | null;
    application: string | null;
    status: string | null;
    after: readonly [at: string, id: string] | null;
  },
): Promise<(DeliveryRow & KeyedRow)[]> {
  const params: unknown[] = [input.tenant, input.limit];
  let where = 'd.tenant = $1';
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where += ` and ${clause.replace('?', `$${params.length}`)}`;
  };
  if (input.endpointId) add('d.endpoint_id = ?', input.endpointId);
  if (input.eventId) add('d.event_id = ?', input.eventId);
  if (input.status) add('d.status = ?', input.status);
  if (input.application) {
    const of = applicationIdOf(t.AP, input.application, '?');
    add(
      `d.endpoint_id in (select id from ${t.EP} where tenant = $1 and application_id = ${of})`,
      input.application,
    );
  }
  if (input.after) {
    params.push(...input.after);
    where += ` and (d.created_at, d.id) < ($${params.length - 1}::timestamptz, $${params.length})`;
  }
  // A leased row is not due before its lease ends, whatever next_attempt_at says.
  const { rows } = await q.query<DeliveryRow & KeyedRow>(
    `select d.id, d.event_id, ev.type, d.endpoint_id, d.status, d.attempts,
            greatest(d.next_attempt_at, d.lease_until) as next_attempt_at, d.created_at,
            d.completed_at, d.last_status, d.last_error, ${createdAtUs('d.created_at')}
       from ${t.D} d left join ${t.EV} ev on ev.tenant = d.tenant and ev.id = d.event_id and ${eventTime('ev', 'd')}
      where ${where} order by d.created_at desc, d.id desc limit $2`,
    params,
  );
  return rows;
}

/**
 * The attempts of delivery `deliveryId` (`dlv_…`), oldest first; undefined when it is not the
 * tenant's, or, with `application`, not to an endpoint of that application (id or uid).
 */
export async function selectAttempts(
  q: Queryable,
  t: Pick<Names, 'D' | 'A' | 'EP' | 'AP'>,
  input: { tenant: string; deliveryId: string; application: string | null },
): Promise<AttemptRow[] | undefined> {
  const owner = await q.query(
    input.application === null
      ? `select 1 from ${t.D} where tenant = $1 and id = $2`
      : `select 1 from ${t.D} d join ${t.EP} e on e.tenant = d.tenant and e.id = d.endpoint_id
          where d.tenant = $1 and d.id = $2
            and e.application_id = ${applicationIdOf(t.AP, input.application, '$3')}`,
    input.application === null
      ? [input.tenant, input.deliveryId]
      : [input.tenant, input.deliveryId, input.application],
  );
  if (owner.rows.length === 0) return undefined;
  const { rows } = await q.query<AttemptRow>(
    `select id, attempt, started_at, duration_ms, status, response_excerpt, error_code, error_message
       from ${t.A} where tenant = $1 and delivery_id = $2 order by started_at, attempt, id`,
    [input.tenant, input.deliveryId],
  );
  return rows;
}
