import type { Queryable } from '@surety/db';
import type { WebhooksContext } from '../context.js';
import { assertStorable, assertTimestamp } from '../input.js';
import { type DeliveryRow, selectAttempts, selectDeliveries } from '../sql/deliveries.js';
import { selectEndpointHealth } from '../sql/endpoint-health.js';
import { toEndpoint } from '../sql/endpoint-row.js';
import { selectEndpoints } from '../sql/endpoints.js';
import { type EventRow, selectEvent, selectEvents } from '../sql/events.js';
import { iso } from '../sql/values.js';
import type { Endpoint } from '../types.js';
import { BY_TIME, byTimeKey, decode, type Page, type PageInput, page } from './pages.js';

export interface EventRecord {
  id: string;
  type: string;
  apiVersion: string;
  createdAt: string;
  sequence: number;
  resource: string | null;
  data: unknown;
  /** The application it was published to (`app_…`); null for the tenant's own event. */
  applicationId: string | null;
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

export interface ListEndpointsInput extends PageInput {
  tenant: string;
  /** Only the endpoints of this application (id `app_…` or uid); none for an unknown one. */
  applicationId?: string;
}

export interface ListEventsInput extends PageInput {
  tenant: string;
  type?: string;
  since?: Date;
  resource?: string;
  /**
   * Only the events published to this application, by id (`app_…`) or uid (a uid names the
   * application that has it now; the events of a deleted one are found by its id).
   */
  applicationId?: string;
}

/** One event of one tenant. */
export interface EventRef {
  tenant: string;
  /** The event's id (`evt_…`, or the id given to `publish`). */
  id: string;
}

export interface ListDeliveriesInput extends PageInput {
  tenant: string;
  endpointId?: string;
  eventId?: string;
  status?: string;
  /** Only the deliveries to endpoints of this application (id `app_…` or uid). */
  applicationId?: string;
}

export interface ListAttemptsInput {
  tenant: string;
  /** `dlv_…` */
  deliveryId: string;
  /**
   * Only a delivery to an endpoint of this application (id `app_…` or uid): undefined for another
   * one, as for a delivery of another tenant.
   */
  applicationId?: string;
}

/** Webhooks.listEndpoints: the endpoints of a tenant, newest first. */
export async function listEndpoints(
  ctx: WebhooksContext,
  q: Queryable,
  input: ListEndpointsInput,
): Promise<Page<Endpoint>> {
  const { tenant, ...options } = input;
  assertStorable({ tenant, applicationId: options.applicationId });
  const limit = options.limit ?? 20;
  const rows = await selectEndpoints(q, ctx.st.tables, {
    tenant,
    limit: limit + 1,
    after: options.cursor ? decode(BY_TIME, options.cursor) : null,
    application: options.applicationId ?? null,
  });
  const nowMs = ctx.now();
  return page(rows, limit, (r) => toEndpoint(r, nowMs), BY_TIME, byTimeKey);
}

/** Webhooks.getEndpointHealth: undefined when the endpoint is not the tenant's. */
export async function getEndpointHealth(
  ctx: WebhooksContext,
  q: Queryable,
  input: { tenant: string; id: string },
): Promise<EndpointHealth | undefined> {
  const { tenant, id } = input;
  assertStorable({ tenant, id });
  const since = new Date(ctx.now() - 86_400_000).toISOString();
  const r = await selectEndpointHealth(q, ctx.st.tables, { tenant, id, sinceIso: since });
  if (!r) return undefined;
  return {
    lastSuccessAt: iso(r.last_success_at),
    lastFailureAt: iso(r.last_failure_at),
    failingSince: iso(r.failing_since),
    attempts24h: r.attempts,
    successRate24h: r.attempts === 0 ? null : r.ok / r.attempts,
    pendingDeliveries: r.pending,
  };
}

const toEvent = (r: EventRow): EventRecord => ({
  id: r.id,
  type: r.type,
  apiVersion: r.api_version,
  createdAt: iso(r.created_at)!,
  sequence: Number(r.sequence),
  resource: r.resource,
  data: JSON.parse(r.data),
  applicationId: r.application_id,
});

/** Webhooks.listEvents: a tenant's events, newest first; filters by type, creation time and resource. */
export async function listEvents(
  ctx: WebhooksContext,
  q: Queryable,
  input: ListEventsInput,
): Promise<Page<EventRecord>> {
  const { tenant, ...options } = input;
  assertStorable({
    tenant,
    type: options.type,
    resource: options.resource,
    applicationId: options.applicationId,
  });
  if (options.since !== undefined) assertTimestamp('since', options.since);
  const limit = options.limit ?? 20;
  const rows = await selectEvents(q, ctx.st.tables, {
    tenant,
    limit: limit + 1,
    type: options.type || null,
    sinceIso: options.since ? options.since.toISOString() : null,
    resource: options.resource || null,
    application: options.applicationId || null,
    after: options.cursor ? decode(BY_TIME, options.cursor) : null,
  });
  return page(rows, limit, toEvent, BY_TIME, byTimeKey);
}

/** Webhooks.getEvent: undefined when the event is not the tenant's. */
export async function getEvent(
  ctx: WebhooksContext,
  q: Queryable,
  input: EventRef,
): Promise<EventRecord | undefined> {
  const { tenant, id } = input;
  assertStorable({ tenant, id });
  const row = await selectEvent(q, ctx.st.tables, { tenant, id });
  return row ? toEvent(row) : undefined;
}

const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.type,
  endpointId: r.endpoint_id,
  status: r.status,
  attempts: r.attempts,
  // A poll endpoint's delivery is due at 'infinity' (no attempt ever: its consumer reads it): null.
  nextAttemptAt:
    r.status === 'pending' && Number.isFinite(new Date(r.next_attempt_at).getTime())
      ? iso(r.next_attempt_at)
      : null,
  createdAt: iso(r.created_at)!,
  completedAt: iso(r.completed_at),
  lastStatus: r.last_status,
  lastError: r.last_error,
});

/**
 * Whether `id` can name a delivery: `dlv_` and base62 (the random ids, and `dlv_60` from before
 * migration 000012). Anything else names none, without a query.
 */
const isDeliveryId = (id: string): boolean => /^dlv_[0-9A-Za-z]{1,40}$/.test(id);

/** Webhooks.listDeliveries: deliveries of an endpoint or of an event, newest first. */
export async function listDeliveries(
  ctx: WebhooksContext,
  q: Queryable,
  input: ListDeliveriesInput,
): Promise<Page<DeliveryRecord>> {
  const { tenant, ...filter } = input;
  assertStorable({
    tenant,
    endpointId: filter.endpointId,
    eventId: filter.eventId,
    status: filter.status,
    applicationId: filter.applicationId,
  });
  const limit = filter.limit ?? 20;
  const rows = await selectDeliveries(q, ctx.st.tables, {
    tenant,
    limit: limit + 1,
    endpointId: filter.endpointId || null,
    eventId: filter.eventId || null,
    status: filter.status || null,
    application: filter.applicationId || null,
    after: filter.cursor ? decode(BY_TIME, filter.cursor) : null,
  });
  return page(rows, limit, toDelivery, BY_TIME, byTimeKey);
}

/** Webhooks.listAttempts: oldest first; undefined when the delivery is not the tenant's. */
export async function listAttempts(
  ctx: WebhooksContext,
  q: Queryable,
  input: ListAttemptsInput,
): Promise<AttemptRecord[] | undefined> {
  const { tenant, deliveryId } = input;
  assertStorable({ tenant, applicationId: input.applicationId });
  if (typeof deliveryId !== 'string' || !isDeliveryId(deliveryId)) return undefined;
  const rows = await selectAttempts(q, ctx.st.tables, {
    tenant,
    deliveryId,
    application: input.applicationId || null,
  });
  return rows?.map((r) => ({
    id: r.id,
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
