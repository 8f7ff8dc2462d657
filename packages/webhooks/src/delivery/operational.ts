// Operational events (issue 37; docs/webhooks.md "Operational events"): events about the delivery
// machinery itself, published to the tenant's own endpoints subscribed to them, in the transaction
// that changes the state they report. Each is about one endpoint, which never receives it: a failing
// endpoint subscribed to its own failures would otherwise feed itself. A delivery of an operational
// event that fails for good publishes nothing (two failing endpoints subscribed to each other's
// failures would otherwise ping-pong for ever).
import { isConnectionError, type Queryable, sqlState, type Tx } from '@surety/db';
import type { WebhooksContext } from '../context.js';
import { publish } from '../publishing/publish.js';
import { backlogCrossings, endThrottles, monitorLock, secretsExpiring } from '../sql/operational.js';
import { contextOf, type Webhooks } from '../webhooks.js';

/**
 * The reserved types, published only by the engine (the service refuses them from tenants). Their
 * `data` always names the endpoint (`endpointId`), and their `resource` is `webhook_endpoint:<id>`.
 */
export const OPERATIONAL_EVENT_TYPES = [
  'endpoint.disabled',
  'endpoint.circuit_opened',
  'endpoint.circuit_closed',
  'endpoint.backlog_exceeded',
  'endpoint.backlog_cleared',
  'endpoint.secret_expiring',
  'delivery.failed',
] as const;

export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

const TYPES: ReadonlySet<string> = new Set(OPERATIONAL_EVENT_TYPES);

/** Whether `type` is one of the engine's reserved operational types. */
export const isOperationalEventType = (type: string): type is OperationalEventType => TYPES.has(type);

/** One operational event to publish. */
export interface OperationalEvent {
  tenant: string;
  type: OperationalEventType;
  /** The endpoint it is about: named in `data`, never a recipient. */
  endpointId: string;
  data: Record<string, unknown>;
}

/**
 * Publishes an operational event in `tx` to the tenant's endpoints of no application subscribed to
 * its type, except the endpoint it is about. A payload the engine's `validate` refuses (a registry
 * that does not know the type) is reported through `onError` and skipped, never allowed to roll
 * back the state change it reports.
 */
export async function publishOperational(
  ctx: WebhooksContext,
  tx: Tx | Queryable,
  event: OperationalEvent,
  onError: (error: Error) => void,
): Promise<void> {
  try {
    await publish(ctx, tx, {
      tenant: event.tenant,
      type: event.type,
      data: { endpointId: event.endpointId, ...event.data },
      resource: `webhook_endpoint:${event.endpointId}`,
      exceptEndpointId: event.endpointId,
    });
  } catch (error) {
    // Not the database's (validation runs before anything is written): the transaction is still
    // usable. The database's own errors abort it, and the state change is retried with its event.
    if (sqlState(error) === undefined && !isConnectionError(error)) onError(error as Error);
    else throw error;
  }
}

/** What one monitor run found and published. */
export interface MonitorReport {
  /** False when another process's run held the lock (this one did nothing). */
  ran: boolean;
  /** The operational events it published. */
  published: OperationalEvent[];
}

export interface MonitorOptions {
  /**
   * Pending deliveries of one endpoint that publish `endpoint.backlog_exceeded`; it is cleared
   * (`endpoint.backlog_cleared`) at half as many. @default 1000
   */
  backlogThreshold?: number;
  /** `endpoint.secret_expiring` this long before a rotated-out secret stops signing. @default 3600000 (1 hour) */
  secretExpiryNoticeMs?: number;
}

/**
 * One run of the operational monitor, in one transaction, skipped when another process's run holds
 * its lock: backlog crossings and expiring secrets, each published once (sql/operational.ts), and
 * throttles that ended taken out of the claim's index. A worker with `operationalEvents` runs it
 * every `monitorIntervalMs`.
 */
export function runMonitor(
  webhooks: Webhooks,
  options: MonitorOptions & { onError?: (error: Error) => void } = {},
): Promise<MonitorReport> {
  return monitor(contextOf(webhooks), options);
}

/** runMonitor on an engine's context (the worker's monitor). */
export async function monitor(
  ctx: WebhooksContext,
  options: MonitorOptions & { onError?: (error: Error) => void } = {},
): Promise<MonitorReport> {
  const high = options.backlogThreshold ?? 1000;
  const noticeMs = options.secretExpiryNoticeMs ?? 3_600_000;
  const onError = options.onError ?? (() => {});
  return ctx.sql.transaction(async (tx) => {
    if (!(await monitorLock(tx, ctx.st))) return { ran: false, published: [] };
    const nowIso = new Date(ctx.now()).toISOString();
    const published: OperationalEvent[] = [];
    const publish = async (e: OperationalEvent) => {
      await publishOperational(ctx, tx, e, onError);
      published.push(e);
    };
    for (const r of await backlogCrossings(tx, ctx.st, { high, low: Math.floor(high / 2) })) {
      await publish({
        tenant: r.tenant,
        type: r.exceeded ? 'endpoint.backlog_exceeded' : 'endpoint.backlog_cleared',
        endpointId: r.id,
        data: { url: r.url, pendingDeliveries: r.pending, threshold: high, at: nowIso },
      });
    }
    for (const r of await secretsExpiring(tx, ctx.st, { nowIso, noticeMs })) {
      await publish({
        tenant: r.tenant,
        type: 'endpoint.secret_expiring',
        endpointId: r.id,
        data: { url: r.url, expiresAt: new Date(r.expires_at).toISOString() },
      });
    }
    await endThrottles(tx, ctx.st, { beforeIso: nowIso });
    return { ran: true, published };
  });
}
