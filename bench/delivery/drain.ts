// The drains of claim-loop.ts and queue-probe.ts: a backlog published through the outbox, and a
// claimed batch completed as delivered (204) with an attempt row each, through the worker's own
// completion statement.
import type { Queryable, Sql } from '@surety/db';
import type { Webhooks } from '@surety/webhooks';
import { completeOnce } from '@surety/webhooks/testing';

export interface ClaimedRow {
  id: string;
  tenant: string;
  endpoint_id: string;
  attempts: number;
}

export const completeDelivered = (
  q: Queryable,
  webhooks: Webhooks,
  workerId: string,
  rows: readonly ClaimedRow[],
) => {
  const at = new Date().toISOString();
  return completeOnce(q, webhooks, {
    nowIso: at,
    workerId,
    outcomes: rows.map((r) => ({
      id: r.id,
      outcome: 'delivered',
      nextAt: null,
      status: 204,
      errorCode: null,
    })),
    attempts: rows.map((r) => ({
      deliveryId: r.id,
      tenant: r.tenant,
      attempt: r.attempts,
      startedAt: at,
      durationMs: 2,
      status: 204,
      excerpt: null,
      errorCode: null,
      errorMessage: null,
      endpointId: r.endpoint_id,
    })),
  });
};

/** `n` events of one tenant, published 500 to a transaction (~250 bytes of data each). */
export async function publishBacklog(sql: Sql, webhooks: Webhooks, n: number) {
  for (let i = 0; i < n; i += 500)
    await sql.transaction(async (tx) => {
      for (let j = i; j < Math.min(n, i + 500); j++)
        await webhooks.publish(tx, {
          tenant: 'bench',
          type: 'order.created',
          data: { i: j, pad: 'x'.repeat(200) },
        });
    });
}
