// Pull delivery's statements (poll/, migration 000021). A poll endpoint's deliveries are written by
// the fan-out like any kind's, due at 'infinity'; a read gives the ones without a position the next
// positions under the cursor row's lock, then reads past the cursor in position order.
import type { Queryable } from '@surety/db';
import type { Names } from './schema.js';
import { eventTime } from './values.js';

type Tables = Pick<Names, 'qs' | 'D' | 'EV'>;

const PC = (t: Tables) => `${t.qs}.webhook_poll_cursors`;

/** The cursor row of a poll endpoint. */
export interface CursorRow {
  head: string;
  position: string;
  key: Buffer | Uint8Array;
}

/** Makes the endpoint's cursor row if it has none; false when the endpoint is gone (its foreign key). */
export async function ensureCursor(
  q: Queryable,
  t: Tables,
  input: { tenant: string; endpointId: string; key: Buffer; nowIso: string },
): Promise<void> {
  await q.query(
    `insert into ${PC(t)} (tenant, endpoint_id, key, updated_at) values ($1, $2, $3, $4) on conflict do nothing`,
    [input.tenant, input.endpointId, input.key, input.nowIso],
  );
}

/**
 * The cursor row, locked until the transaction ends: the lock that orders position assignment. Its
 * own statement, so that the assignment after it runs on a snapshot taken once the lock is held
 * (READ COMMITTED), which holds every position an earlier reader gave.
 */
export async function lockCursor(
  q: Queryable,
  t: Tables,
  input: { tenant: string; endpointId: string },
): Promise<CursorRow | undefined> {
  const { rows } = await q.query<CursorRow>(
    `select head::text as head, position::text as position, key from ${PC(t)}
      where tenant = $1 and endpoint_id = $2 for update`,
    [input.tenant, input.endpointId],
  );
  return rows[0];
}

/**
 * Gives the next `limit` committed deliveries without a position (in sequence order) positions
 * head+1…, and moves the head past them. Runs after lockCursor, in its transaction. The new head.
 */
export async function assignPositions(
  q: Queryable,
  t: Tables,
  input: { tenant: string; endpointId: string; head: string; limit: number; nowIso: string },
): Promise<string> {
  const { rows } = await q.query<{ head: string }>(
    `with n as (
       select d.id, row_number() over (order by d.sequence, d.id) as rn
         from ${t.D} d
        where d.tenant = $1 and d.endpoint_id = $2 and d.status = 'pending'
          and d.next_attempt_at = 'infinity' and d.poll_position is null
        order by d.sequence, d.id
        limit $4),
     a as (
       update ${t.D} d set poll_position = $3::bigint + n.rn from n
        where d.id = n.id and d.tenant = $1 and d.endpoint_id = $2
       returning 1)
     update ${PC(t)} set head = $3::bigint + (select count(*) from a),
            updated_at = case when exists (select 1 from a) then $5::timestamptz else updated_at end
      where tenant = $1 and endpoint_id = $2
     returning head::text as head`,
    [input.tenant, input.endpointId, input.head, input.limit, input.nowIso],
  );
  return rows[0]!.head;
}

/** One read row: a delivery past the cursor and its event (null when retention dropped it). */
export interface PollRow {
  id: string;
  poll_position: string;
  event_id: string;
  type: string | null;
  api_version: string | null;
  event_created_at: Date | null;
  sequence: string | null;
  data: string | null;
}

/** The pending deliveries past `after`, in position order, with their events. */
export async function readPositions(
  q: Queryable,
  t: Tables,
  input: { tenant: string; endpointId: string; after: string; limit: number },
): Promise<PollRow[]> {
  const { rows } = await q.query<PollRow>(
    `select d.id, d.poll_position::text as poll_position, d.event_id, ev.type, ev.api_version,
            ev.created_at as event_created_at, ev.sequence::text as sequence, ev.data
       from ${t.D} d
       left join lateral (select e.type, e.api_version, e.created_at, e.sequence, e.data from ${t.EV} e
                           where e.tenant = d.tenant and e.id = d.event_id and ${eventTime('e', 'd')}
                           limit 1) ev on true
      where d.tenant = $1 and d.endpoint_id = $2 and d.poll_position is not null and d.poll_position > $3::bigint
        and d.status = 'pending'
      order by d.poll_position
      limit $4`,
    [input.tenant, input.endpointId, input.after, input.limit],
  );
  return rows;
}

/**
 * Moves the acknowledged position to `to` and marks the deliveries it passes delivered (the
 * lists and metrics see them so). Runs after lockCursor, in its transaction, with `from` the
 * position it read; `to` ≤ `from` changes nothing (an acknowledgement repeated). How many.
 */
export async function acknowledge(
  q: Queryable,
  t: Tables,
  input: { tenant: string; endpointId: string; from: string; to: string; nowIso: string },
): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `with d as (
       update ${t.D} set status = 'delivered', completed_at = $5, attempts = attempts + 1
        where tenant = $1 and endpoint_id = $2 and poll_position is not null
          and poll_position > $3::bigint and poll_position <= $4::bigint and status = 'pending'
       returning 1),
     c as (
       update ${PC(t)} set position = $4::bigint, updated_at = $5
        where tenant = $1 and endpoint_id = $2 and position < $4::bigint
       returning 1)
     select (select count(*) from d)::int as n, (select count(*) from c)::int as moved`,
    [input.tenant, input.endpointId, input.from, input.to, input.nowIso],
  );
  return rows[0]!.n;
}
