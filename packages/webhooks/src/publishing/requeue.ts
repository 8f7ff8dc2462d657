// Re-queueing behind Webhooks' methods: an event again (replayEvent), an endpoint's failed
// deliveries (recoverEndpoint). Both answer how many deliveries they queued.
import type { Queryable } from '@surety/db';
import type { WebhooksContext } from '../context.js';
import { findEndpoint } from '../endpoints/operations.js';
import { EndpointNotFoundError } from '../errors.js';
import { FILTER_MAX_DATA_DEPTH, nestsDeeperThan } from '../filter/depth.js';
import { assertStorable, assertTimestamp } from '../input.js';
import { insertReplay, requeueFailed, selectEventData } from '../sql/replay.js';
import type { RecoverEndpointInput, ReplayEventInput } from '../types.js';

/** Webhooks.replayEvent: 0 for an event that is not the tenant's. */
export async function replayEvent(
  ctx: WebhooksContext,
  q: Queryable,
  input: ReplayEventInput,
): Promise<number> {
  assertStorable({ tenant: input.tenant, eventId: input.eventId, endpointId: input.endpointId });
  // Only a replay to every endpoint filters; it reads the payload first to know it can.
  let filterable = true;
  if (input.endpointId === undefined) {
    const data = await selectEventData(q, ctx.st.tables, { tenant: input.tenant, eventId: input.eventId });
    if (data === undefined) return 0;
    filterable = !nestsDeeperThan(JSON.parse(data), FILTER_MAX_DATA_DEPTH);
  }
  return insertReplay(q, ctx.st.tables, {
    tenant: input.tenant,
    eventId: input.eventId,
    endpointId: input.endpointId ?? null,
    nowIso: new Date(ctx.now()).toISOString(),
    channel: ctx.channel,
    filterable,
  });
}

/** Webhooks.recoverEndpoint; EndpointNotFoundError for a missing endpoint. */
export async function recoverEndpoint(
  ctx: WebhooksContext,
  q: Queryable,
  input: RecoverEndpointInput,
): Promise<number> {
  assertStorable({ tenant: input.tenant, endpointId: input.endpointId });
  assertTimestamp('since', input.since);
  const { tenant, endpointId } = input;
  const n = await requeueFailed(q, ctx.st.tables, {
    tenant,
    endpointId,
    sinceIso: input.since.toISOString(),
    nowIso: new Date(ctx.now()).toISOString(),
    channel: ctx.channel,
  });
  // Checked only when nothing was queued: an endpoint with failed deliveries exists.
  if (n === 0 && !(await findEndpoint(ctx, q, { tenant, id: endpointId }))) throw new EndpointNotFoundError();
  return n;
}
