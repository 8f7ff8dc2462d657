// Pull delivery (issue 36): a poll endpoint's consumer reads its deliveries past a durable cursor
// and acknowledges by moving it. At least once: what is read and not acknowledged is read again;
// in order: positions follow the order in which deliveries became visible (sql/poll.ts, migration
// 000021), so a consumer past a position never misses one that commits later.
import { randomBytes } from 'node:crypto';
import { type Queryable, type Sql, sqlState, type Tx } from '@surety/db';
import type { WebhooksContext } from '../context.js';
import { envelopeJson } from '../envelope.js';
import { EndpointNotFoundError, NotPollEndpointError, WebhookError } from '../errors.js';
import { assertStorable } from '../input.js';
import { selectEndpoint } from '../sql/endpoints.js';
import {
  acknowledge,
  assignPositions,
  type CursorRow,
  ensureCursor,
  lockCursor,
  readPositions,
} from '../sql/poll.js';
import { encodeCursor, parseCursor, verifyCursor } from './cursor.js';

/** Most events a read answers. */
export const MAX_POLL_LIMIT = 500;

/** Input of Webhooks.readPoll. */
export interface ReadPollInput {
  tenant: string;
  /** The poll endpoint. */
  id: string;
  /** Read past this cursor (one this endpoint returned) instead of the acknowledged one; never before it. */
  after?: string | undefined;
  /** Most events answered, 1 to MAX_POLL_LIMIT. @default 100 */
  limit?: number | undefined;
}

/** One event read: its delivery (the id the deliveries listing shows) and the envelope's JSON. */
export interface PollItem {
  deliveryId: string;
  eventId: string;
  /** The envelope, byte for byte what a webhook body of this event is. */
  envelope: string;
}

/** What a read answers. */
export interface PollPage {
  data: PollItem[];
  /** The position after the last event answered (or the one read from, when none): acknowledge it, or read after it. */
  cursor: string;
  /** More events are past `cursor` already. */
  hasMore: boolean;
}

/** Input of Webhooks.ackPoll. */
export interface AckPollInput {
  tenant: string;
  id: string;
  /** A cursor this endpoint returned: every event up to it is acknowledged. */
  cursor: string;
}

async function pollEndpoint(ctx: WebhooksContext, q: Queryable, tenant: string, id: string): Promise<void> {
  const row = await selectEndpoint(q, ctx.st.tables, { tenant, id });
  if (!row) throw new EndpointNotFoundError();
  if (row.kind !== 'poll') throw new NotPollEndpointError(row.kind);
}

/** The endpoint's cursor row, locked; made at the first read. */
async function lockedCursor(
  ctx: WebhooksContext,
  tx: Tx,
  tenant: string,
  endpointId: string,
): Promise<CursorRow> {
  const t = ctx.st.tables;
  const row = await lockCursor(tx, t, { tenant, endpointId });
  if (row) return row;
  await ensureCursor(tx, t, {
    tenant,
    endpointId,
    key: randomBytes(32),
    nowIso: new Date(ctx.now()).toISOString(),
  }).catch((error: unknown) => {
    // The foreign key: the endpoint was deleted since it was read.
    throw sqlState(error) === '23503' ? new EndpointNotFoundError() : error;
  });
  return (await lockCursor(tx, t, { tenant, endpointId }))!;
}

/** A token's position, checked against this endpoint (another's is a 404, a forged one a 400). */
function positionOf(tenant: string, endpointId: string, cursor: CursorRow, token: string): bigint {
  const parsed = parseCursor(token);
  // A cursor of another endpoint (another application's, another tenant's) names nothing here.
  if (parsed.endpointId !== endpointId) throw new EndpointNotFoundError();
  verifyCursor(cursor.key, tenant, parsed);
  return BigInt(parsed.position);
}

/** Webhooks.readPoll: one transaction of a few milliseconds, never a wait (poll/waits.ts waits between reads). */
export async function readPoll(ctx: WebhooksContext, sql: Sql, input: ReadPollInput): Promise<PollPage> {
  assertStorable({ tenant: input.tenant, id: input.id, after: input.after });
  const t = ctx.st.tables;
  const { tenant, id } = input;
  const limit = Math.min(Math.max(1, Math.trunc(input.limit ?? 100)), MAX_POLL_LIMIT);
  await pollEndpoint(ctx, sql, tenant, id);
  return sql.transaction(async (tx) => {
    const cursor = await lockedCursor(ctx, tx, tenant, id);
    let start = BigInt(cursor.position);
    if (input.after !== undefined) {
      const after = positionOf(tenant, id, cursor, input.after);
      if (after > start) start = after;
    }
    const head = await assignPositions(tx, t, {
      tenant,
      endpointId: id,
      head: cursor.head,
      limit,
      nowIso: new Date(ctx.now()).toISOString(),
    });
    const rows =
      BigInt(head) > start
        ? await readPositions(tx, t, { tenant, endpointId: id, after: start.toString(), limit })
        : [];
    const data: PollItem[] = [];
    for (const r of rows) {
      // An event retention dropped (its delivery kept longer): passed over, the cursor moves past it.
      if (r.data === null || r.type === null) continue;
      data.push({
        deliveryId: r.id,
        eventId: r.event_id,
        envelope: envelopeJson({
          id: r.event_id,
          type: r.type,
          apiVersion: r.api_version!,
          createdAt: r.event_created_at!,
          sequence: r.sequence!,
          data: r.data,
        }),
      });
    }
    const last = rows.length > 0 ? rows[rows.length - 1]!.poll_position : start.toString();
    return {
      data,
      cursor: encodeCursor(cursor.key, tenant, id, last),
      hasMore: rows.length === limit,
    };
  });
}

/**
 * Webhooks.ackPoll: moves the endpoint's cursor to the one given (never back) and marks the
 * deliveries it passes delivered. The acknowledged cursor and how many deliveries it completed.
 */
export async function ackPoll(
  ctx: WebhooksContext,
  tx: Tx,
  input: AckPollInput,
): Promise<{ cursor: string; acknowledged: number }> {
  assertStorable({ tenant: input.tenant, id: input.id, cursor: input.cursor });
  const { tenant, id } = input;
  await pollEndpoint(ctx, tx, tenant, id);
  const cursor = await lockedCursor(ctx, tx, tenant, id);
  const to = positionOf(tenant, id, cursor, input.cursor);
  // A valid token is for a position this endpoint gave out: never past its head.
  if (to > BigInt(cursor.head))
    throw new WebhookError('SURETY_INVALID_CURSOR', 'not a cursor this endpoint returned');
  const from = BigInt(cursor.position);
  if (to <= from) return { cursor: encodeCursor(cursor.key, tenant, id, cursor.position), acknowledged: 0 };
  const acknowledged = await acknowledge(tx, ctx.st.tables, {
    tenant,
    endpointId: id,
    from: from.toString(),
    to: to.toString(),
    nowIso: new Date(ctx.now()).toISOString(),
  });
  return { cursor: encodeCursor(cursor.key, tenant, id, to.toString()), acknowledged };
}
