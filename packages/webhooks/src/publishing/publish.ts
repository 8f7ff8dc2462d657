// Publishing (Webhooks.publish): the event and its deliveries written in the caller's transaction,
// the workers woken once it commits.
import { EVENT_TYPE_PATTERN as TYPE } from '@surety/core';
import type { Queryable, Tx } from '@surety/db';
import { resolveApplication } from '../applications/operations.js';
import type { WebhooksContext } from '../context.js';
import { InvalidEventError } from '../errors.js';
import { FILTER_MAX_DATA_DEPTH, nestsDeeperThan } from '../filter/depth.js';
import { newId } from '../ids.js';
import { assertStorable } from '../input.js';
import { insertEvent } from '../sql/publish.js';
import { publishingContext } from '../tracing.js';
import type { PublishedEvent, PublishInput } from '../types.js';

const EVENT_ID = /^[\x21-\x7e]{1,255}$/;

/** Webhooks.publish: the event and one delivery per subscribed, enabled endpoint, in `tx`. */
export async function publish(
  ctx: WebhooksContext,
  tx: Tx | Queryable,
  input: PublishInput,
): Promise<PublishedEvent> {
  if (!TYPE.test(input.type)) {
    throw new InvalidEventError(`event type must look like "order.shipped": ${JSON.stringify(input.type)}`);
  }
  if (input.id !== undefined && !EVENT_ID.test(input.id)) {
    throw new InvalidEventError('event id must be 1-255 visible ASCII characters');
  }
  assertStorable({ ...input }, 'event');
  ctx.validate?.(input.type, input.data);
  const data = JSON.stringify(input.data);
  if (data === undefined) throw new InvalidEventError('event data must be JSON');
  const applicationId =
    input.application === undefined
      ? null
      : await resolveApplication(ctx, tx, {
          tenant: input.tenant,
          ref: input.application,
          field: 'application',
        });
  const id = input.id ?? newId('evt');
  const createdAt = new Date(ctx.now()).toISOString();
  const written = await insertEvent(tx, ctx.st, {
    tenant: input.tenant,
    id,
    type: input.type,
    apiVersion: ctx.apiVersion,
    resource: input.resource ?? null,
    data,
    createdAt,
    endpointId: input.endpointId ?? null,
    traceContext: publishingContext(),
    applicationId,
    chosenId: input.id !== undefined,
    filterable: !nestsDeeperThan(input.data, FILTER_MAX_DATA_DEPTH),
    exceptEndpointId: input.exceptEndpointId ?? null,
  });
  const deliveries = written.deliveries;
  if (deliveries > 0) {
    if ('afterCommit' in tx) tx.afterCommit(ctx.wake);
    else ctx.wake();
  }
  return {
    id,
    sequence: Number(written.sequence),
    createdAt,
    deliveries,
    applicationId: written.applicationId,
  };
}
