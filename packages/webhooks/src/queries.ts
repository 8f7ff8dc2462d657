import {
  type CursorPart,
  type CursorValues,
  type KeysetCursor,
  keysetCursor,
  type Queryable,
} from '@surety/db';
import { EndpointNotFoundError, WebhookError } from './errors.js';
import { assertStorable, assertTimestamp } from './input.js';
import { ENDPOINT_COLUMNS, toEndpoint } from './sql/endpoint-row.js';
import { iso } from './sql/names.js';
import { type Endpoint, internalsOf, type Webhooks } from './webhooks.js';

/** A page of a keyset-paginated list: stable under concurrent inserts (no duplicates, no gaps). */
export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface EventRecord {
  id: string;
  type: string;
  apiVersion: string;
  createdAt: string;
  sequence: number;
  resource: string | null;
  data: unknown;
}

export interface DeliveryRecord {
  id: string;
  eventId: string;
  eventType: string | null;
  endpointId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
}

export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  status: number | null;
  responseExcerpt: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface EndpointHealth {
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  failingSince: string | null;
  /** Attempts in the last 24 hours, and the share of them answered 2xx (null without attempts). */
  attempts24h: number;
  successRate24h: number | null;
  pendingDeliveries: number;
}

// Cursors are @surety/db's keyset codec, one per sort order; a forged one is a WebhookError
// SURETY_INVALID_CURSOR (the package's own error, with the codec's as its cause).
const BY_TIME = keysetCursor('timestamp', 'text');
const BY_NUMBER = keysetCursor('bigint');

function decode<P extends readonly CursorPart[]>(codec: KeysetCursor<P>, cursor: string): CursorValues<P> {
  try {
    return codec.decode(cursor);
  } catch (error) {
    throw new WebhookError('SURETY_INVALID_CURSOR', 'the cursor is not one this API returned', {
      cause: error,
    });
  }
}

function page<T, R, P extends readonly CursorPart[]>(
  rows: R[],
  limit: number,
  map: (r: R) => T,
  codec: KeysetCursor<P>,
  key: (t: T) => CursorValues<P>,
): Page<T> {
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit).map(map);
  const last = data.at(-1);
  return { data, hasMore, nextCursor: hasMore && last ? codec.encode(key(last)) : null };
}

/** The endpoints of a tenant, newest first. */
export async function listEndpoints(
  w: Webhooks,
  q: Queryable,
  tenant: string,
  options: { limit?: number; cursor?: string } = {},
): Promise<Page<Endpoint>> {
  assertStorable({ tenant });
  const limit = options.limit ?? 20;
  const params: unknown[] = [tenant, limit + 1];
  let where = 'tenant = $1';
  if (options.cursor) {
    const [at, id] = decode(BY_TIME, options.cursor);
    params.push(at, id);
    where += ' and (created_at, id) < ($3::timestamptz, $4)';
  }
  const { rows } = await q.query<Parameters<typeof toEndpoint>[0]>(
    `select ${ENDPOINT_COLUMNS} from ${internalsOf(w).st.tables.EP} where ${where} order by created_at desc, id desc limit $2`,
    params,
  );
  const nowMs = internalsOf(w).now();
  return page(
    rows,
    limit,
    (r) => toEndpoint(r, nowMs),
    BY_TIME,
    (e) => [e.createdAt, e.id],
  );
}

export async function endpointHealth(
  w: Webhooks,
  q: Queryable,
  tenant: string,
  id: string,
): Promise<EndpointHealth> {
  assertStorable({ tenant, id });
  const since = new Date(internalsOf(w).now() - 86_400_000).toISOString();
  const { rows } = await q.query<{
    last_success_at: Date | null;
    last_failure_at: Date | null;
    failing_since: Date | null;
    attempts: number;
    ok: number;
    pending: number;
  }>(
    `select e.last_success_at, e.last_failure_at, e.failing_since,
            (select count(*)::int from ${internalsOf(w).st.tables.A} a where a.tenant = e.tenant and a.endpoint_id = e.id and a.started_at >= $3) as attempts,
            (select count(*)::int from ${internalsOf(w).st.tables.A} a where a.tenant = e.tenant and a.endpoint_id = e.id and a.started_at >= $3
                and a.status between 200 and 299) as ok,
            (select count(*)::int from ${internalsOf(w).st.tables.D} d where d.tenant = e.tenant and d.endpoint_id = e.id and d.status = 'pending') as pending
       from ${internalsOf(w).st.tables.EP} e where e.tenant = $1 and e.id = $2`,
    [tenant, id, since],
  );
  const r = rows[0];
  if (!r) throw new EndpointNotFoundError();
  return {
    lastSuccessAt: iso(r.last_success_at),
    lastFailureAt: iso(r.last_failure_at),
    failingSince: iso(r.failing_since),
    attempts24h: r.attempts,
    successRate24h: r.attempts === 0 ? null : r.ok / r.attempts,
    pendingDeliveries: r.pending,
  };
}

interface EventRow {
  id: string;
  type: string;
  api_version: string;
  created_at: Date;
  sequence: string;
  resource: string | null;
  data: string;
}

const toEvent = (r: EventRow): EventRecord => ({
  id: r.id,
  type: r.type,
  apiVersion: r.api_version,
  createdAt: iso(r.created_at)!,
  sequence: Number(r.sequence),
  resource: r.resource,
  data: JSON.parse(r.data),
});

/** A tenant's events, newest first; filters by type, creation time and resource. */
export async function listEvents(
  w: Webhooks,
  q: Queryable,
  tenant: string,
  options: { limit?: number; cursor?: string; type?: string; since?: Date; resource?: string } = {},
): Promise<Page<EventRecord>> {
  assertStorable({ tenant, type: options.type, resource: options.resource });
  if (options.since !== undefined) assertTimestamp('since', options.since);
  const limit = options.limit ?? 20;
  const params: unknown[] = [tenant, limit + 1];
  let where = 'tenant = $1';
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where += ` and ${clause.replace('?', `$${params.length}`)}`;
  };
  if (options.type) add('type = ?', options.type);
  if (options.since) add('created_at >= ?::timestamptz', options.since.toISOString());
  if (options.resource) add('resource = ?', options.resource);
  if (options.cursor) {
    const [at, id] = decode(BY_TIME, options.cursor);
    params.push(at, id);
    where += ` and (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
  }
  const { rows } = await q.query<EventRow>(
    `select id, type, api_version, created_at, sequence::text, resource, data from ${internalsOf(w).st.tables.EV}
      where ${where} order by created_at desc, id desc limit $2`,
    params,
  );
  return page(rows, limit, toEvent, BY_TIME, (e) => [e.createdAt, e.id]);
}

export async function getEvent(
  w: Webhooks,
  q: Queryable,
  tenant: string,
  id: string,
): Promise<EventRecord | undefined> {
  assertStorable({ tenant, id });
  const { rows } = await q.query<EventRow>(
    `select id, type, api_version, created_at, sequence::text, resource, data from ${internalsOf(w).st.tables.EV} where tenant = $1 and id = $2`,
    [tenant, id],
  );
  return rows[0] ? toEvent(rows[0]) : undefined;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  type: string | null;
  endpoint_id: string;
  status: DeliveryRecord['status'];
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  completed_at: Date | null;
  last_status: number | null;
  last_error: string | null;
}

const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: `dlv_${r.id}`,
  eventId: r.event_id,
  eventType: r.type,
  endpointId: r.endpoint_id,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.status === 'pending' ? iso(r.next_attempt_at) : null,
  createdAt: iso(r.created_at)!,
  completedAt: iso(r.completed_at),
  lastStatus: r.last_status,
  lastError: r.last_error,
});

/** `dlv_123` → 123, or undefined for anything else. */
export const deliveryNumber = (id: string): string | undefined =>
  /^dlv_[1-9][0-9]{0,17}$/.test(id) ? id.slice(4) : undefined;

/** Deliveries of an endpoint or of an event, newest first; optional status filter. */
export async function listDeliveries(
  w: Webhooks,
  q: Queryable,
  tenant: string,
  filter: { endpointId?: string; eventId?: string; status?: string; limit?: number; cursor?: string },
): Promise<Page<DeliveryRecord>> {
  assertStorable({ tenant, endpointId: filter.endpointId, eventId: filter.eventId, status: filter.status });
  const limit = filter.limit ?? 20;
  const params: unknown[] = [tenant, limit + 1];
  let where = 'd.tenant = $1';
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where += ` and ${clause.replace('?', `$${params.length}`)}`;
  };
  if (filter.endpointId) add('d.endpoint_id = ?', filter.endpointId);
  if (filter.eventId) add('d.event_id = ?', filter.eventId);
  if (filter.status) add('d.status = ?', filter.status);
  if (filter.cursor) add('d.id < ?::bigint', decode(BY_NUMBER, filter.cursor)[0]);
  const { rows } = await q.query<DeliveryRow>(
    `select d.id::text, d.event_id, ev.type, d.endpoint_id, d.status, d.attempts,
            greatest(d.next_attempt_at, d.lease_until) as next_attempt_at, d.created_at,
            d.completed_at, d.last_status, d.last_error
       from ${internalsOf(w).st.tables.D} d left join ${internalsOf(w).st.tables.EV} ev on ev.tenant = d.tenant and ev.id = d.event_id
      where ${where} order by d.id desc limit $2`,
    params,
  );
  return page(rows, limit, toDelivery, BY_NUMBER, (d) => [d.id.slice(4)]);
}

/** The attempts of one delivery, oldest first; undefined when the delivery is not the tenant's. */
export async function listAttempts(
  w: Webhooks,
  q: Queryable,
  tenant: string,
  deliveryId: string,
): Promise<AttemptRecord[] | undefined> {
  const n = deliveryNumber(deliveryId);
  if (!n) return undefined;
  const owner = await q.query(
    `select 1 from ${internalsOf(w).st.tables.D} where tenant = $1 and id = $2::bigint`,
    [tenant, n],
  );
  if (owner.rows.length === 0) return undefined;
  const { rows } = await q.query<{
    id: string;
    attempt: number;
    started_at: Date;
    duration_ms: number;
    status: number | null;
    response_excerpt: string | null;
    error_code: string | null;
    error_message: string | null;
  }>(
    `select id::text, attempt, started_at, duration_ms, status, response_excerpt, error_code, error_message
       from ${internalsOf(w).st.tables.A} where tenant = $1 and delivery_id = $2::bigint order by id`,
    [tenant, n],
  );
  return rows.map((r) => ({
    id: `att_${r.id}`,
    deliveryId,
    attempt: r.attempt,
    startedAt: iso(r.started_at)!,
    durationMs: r.duration_ms,
    status: r.status,
    responseExcerpt: r.response_excerpt,
    errorCode: r.error_code,
    errorMessage: r.error_message,
  }));
}
