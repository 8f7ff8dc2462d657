// Re-queueing behind Webhooks' methods: an event again (replayEvent), an endpoint's failed
// deliveries (recoverEndpoint). Both answer how many deliveries they queued.
import type { Queryable } from '@surety/db';
import { findEndpoint } from './endpoint-writes.js';
import { EndpointNotFoundError } from './errors.js';
import { FILTER_MAX_DATA_DEPTH, nestsDeeperThan } from './filter/depth.js';
import { internalsOf } from './internals.js';
import { insertReplay, requeueFailed, selectEventData } from './sql/replay.js';
import type { RecoverEndpointInput, ReplayEventInput } from './types.js';
import type { Webhooks } from './webhooks.js';

/** Webhooks.replayEvent, after the input check: 0 for an event that is not the tenant's. */
export async function replayEventFor(w: Webhooks, q: Queryable, input: ReplayEventInput): Promise<number> {
  const i = internalsOf(w);
  // Only a replay to every endpoint filters; it reads the payload first to know it can.
  let filterable = true;
  if (input.endpointId === undefined) {
    const data = await selectEventData(q, i.st.tables, { tenant: input.tenant, eventId: input.eventId });
    if (data === undefined) return 0;
    filterable = !nestsDeeperThan(JSON.parse(data), FILTER_MAX_DATA_DEPTH);
  }
  return insertReplay(q, i.st.tables, {
    tenant: input.tenant,
    eventId: input.eventId,
    endpointId: input.endpointId ?? null,
    nowIso: new Date(i.now()).toISOString(),
    channel: i.channel,
    filterable,
  });
}

/** Webhooks.recoverEndpoint, after the input check; EndpointNotFoundError for a missing endpoint. */
export async function recoverEndpointFor(
  w: Webhooks,
  q: Queryable,
  input: RecoverEndpointInput,
): Promise<number> {
  const i = internalsOf(w);
  const { tenant, endpointId } = input;
  const n = await requeueFailed(q, i.st.tables, {
    tenant,
    endpointId,
    sinceIso: input.since.toISOString(),
    nowIso: new Date(i.now()).toISOString(),
    channel: i.channel,
  });
  // Checked only when nothing was queued: an endpoint with failed deliveries exists.
  if (n === 0 && !(await findEndpoint(w, q, { tenant, id: endpointId }))) throw new EndpointNotFoundError();
  return n;
}
