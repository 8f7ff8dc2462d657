import { EVENT_TYPE_PATTERN as TYPE } from '@surety/core';
import { migrate, type Queryable, type Tx } from '@surety/db';
import { createEndpointFor, rotateSecretFor, updateEndpointFor } from './endpoint-writes.js';
import { EndpointNotFoundError, InvalidEventError, WebhookError } from './errors.js';
import { newId } from './ids.js';
import { assertStorable, assertTimestamp } from './input.js';
import { setInternals, type WebhooksInternals } from './internals.js';
import { migrations } from './migrations.js';
import { CommitNotifier } from './notify.js';
import { DEFAULT_SCHEDULE } from './schedule.js';
import type { AllowList } from './ssrf/index.js';
import { validateWebhookUrl } from './ssrf/index.js';
import type {
  CreateEndpointInput,
  Endpoint,
  PublishedEvent,
  PublishInput,
  WebhooksOptions,
} from './types.js';

export type { Backlog } from './sql/backlog.js';
export type {
  CircuitState,
  CreateEndpointInput,
  Endpoint,
  PublishedEvent,
  PublishInput,
  SecretEntry,
  WebhooksOptions,
} from './types.js';

import { type Backlog, readBacklog } from './sql/backlog.js';
import { toEndpoint } from './sql/endpoint-row.js';
import { deleteEndpointRow, enableEndpointRow, selectEndpoint } from './sql/endpoints.js';
import { disableEndpointRow } from './sql/health.js';
import { statements } from './sql/index.js';
import { notifyChannel } from './sql/names.js';
import { insertEvent } from './sql/publish.js';
import { insertReplay, requeueFailed } from './sql/replay.js';
import { purgeBatch } from './sql/retention.js';
import { publishingContext } from './tracing.js';

const EVENT_ID = /^[\x21-\x7e]{1,255}$/;

/**
 * The webhook engine on one schema: the transactional outbox (`publish`), endpoints, replay and
 * retention. Workers are created with `createDeliveryWorker({ webhooks, … })`.
 * @example
 * const webhooks = new Webhooks({ sql });
 * await sql.transaction(async (tx) => {
 *   await tx.query('update orders set status = $2 where id = $1', [id, 'shipped']);
 *   await webhooks.publish(tx, { tenant, type: 'order.shipped', data: order, resource: `order:${id}` });
 * });
 */
export class Webhooks {
  readonly #i: WebhooksInternals;
  readonly schema: string;
  readonly apiVersion: string;
  readonly allowHttp: boolean;
  readonly allowList: AllowList;
  readonly maxEndpointsPerTenant: number;
  readonly #validate: ((type: string, data: unknown) => void) | undefined;
  /** NOTIFY after a commit that created deliveries (notify.ts: folded while one is in flight). */
  readonly #wake: () => void;

  constructor(options: WebhooksOptions) {
    this.schema = options.schema ?? 'surety';
    this.apiVersion = options.apiVersion ?? '2026-11-01';
    this.allowHttp = options.allowHttp ?? false;
    this.allowList = options.allowList ?? [];
    this.#i = {
      sql: options.sql,
      st: statements(this.schema),
      now: options.now ?? Date.now,
      channel: notifyChannel(this.schema),
    };
    setInternals(this, this.#i);
    this.#wake = new CommitNotifier(this.#i.sql, this.#i.channel).wake;
    this.maxEndpointsPerTenant = options.maxEndpointsPerTenant ?? 10_000;
    this.#validate = options.validate;
  }

  async migrate(): Promise<void> {
    await migrate(this.#i.sql, { schema: this.schema, sets: [migrations] });
  }

  /**
   * Writes the event and one delivery per subscribed, enabled endpoint, in the caller's
   * transaction: the event exists if and only if the transaction commits. Workers are woken by a
   * NOTIFY sent once the transaction has committed (never for a rolled-back one); a lost NOTIFY
   * only delays delivery to the workers' next poll.
   */
  async publish(tx: Tx | Queryable, input: PublishInput): Promise<PublishedEvent> {
    if (!TYPE.test(input.type)) {
      throw new InvalidEventError(`event type must look like "order.shipped": ${JSON.stringify(input.type)}`);
    }
    if (input.id !== undefined && !EVENT_ID.test(input.id)) {
      throw new InvalidEventError('event id must be 1-255 visible ASCII characters');
    }
    assertStorable({ ...input }, 'event');
    this.#validate?.(input.type, input.data);
    const data = JSON.stringify(input.data);
    if (data === undefined) throw new InvalidEventError('event data must be JSON');
    const id = input.id ?? newId('evt');
    const createdAt = new Date(this.#i.now()).toISOString();
    const written = await insertEvent(tx, this.#i.st, {
      tenant: input.tenant,
      id,
      type: input.type,
      apiVersion: this.apiVersion,
      resource: input.resource ?? null,
      data,
      createdAt,
      endpointId: input.endpointId ?? null,
      traceContext: publishingContext(),
    });
    const deliveries = written.deliveries;
    if (deliveries > 0) {
      if ('afterCommit' in tx) tx.afterCommit(this.#wake);
      else this.#wake();
    }
    return { id, sequence: Number(written.sequence), createdAt, deliveries };
  }

  /** Checks a URL the way endpoint creation does; throws WebhookError `SURETY_INVALID_URL`. */
  checkUrl(url: string): string {
    const checked = validateWebhookUrl(url, { allowHttp: this.allowHttp, allowList: this.allowList });
    if (!checked.ok) throw new WebhookError('SURETY_INVALID_URL', checked.message);
    return checked.url.href;
  }

  /**
   * Creates an endpoint. The secret is returned here once; store it on the receiving side. Throws
   * EndpointLimitError when the tenant already has `maxEndpointsPerTenant` (exact under concurrent
   * creates: the tenant's count row is taken in the same statement as the insert).
   */
  async createEndpoint(
    q: Queryable,
    input: CreateEndpointInput,
  ): Promise<{ endpoint: Endpoint; secret: string }> {
    assertStorable({ ...input });
    return createEndpointFor(this, q, input);
  }

  async getEndpoint(q: Queryable, tenant: string, id: string): Promise<Endpoint> {
    assertStorable({ tenant, id });
    const row = await selectEndpoint(q, this.#i.st.tables, { tenant, id });
    if (!row) throw new EndpointNotFoundError();
    return toEndpoint(row, this.#i.now());
  }

  /**
   * Changes an endpoint if it is still at `expectedVersion` (optimistic concurrency); resolves to
   * undefined when another write came first, and throws EndpointNotFoundError when it does not exist.
   */
  async updateEndpoint(
    q: Queryable,
    tenant: string,
    id: string,
    expectedVersion: number,
    patch: Partial<
      Pick<
        CreateEndpointInput,
        | 'url'
        | 'eventTypes'
        | 'description'
        | 'format'
        | 'retrySchedule'
        | 'rateLimit'
        | 'ordered'
        | 'traceContext'
      >
    >,
  ): Promise<Endpoint | undefined> {
    assertStorable({ tenant, id, ...patch });
    return updateEndpointFor(this, q, { tenant, id, expectedVersion, patch });
  }

  /**
   * Deletes an endpoint and fails its queued deliveries (history is kept until retention). With
   * `expectedVersion`, only that version: resolves to false when the endpoint is at another one.
   * Throws EndpointNotFoundError when it does not exist.
   */
  async deleteEndpoint(tx: Tx, tenant: string, id: string, expectedVersion?: number): Promise<boolean> {
    assertStorable({ tenant, id });
    // The tenant's endpoint count goes down in the statement that deletes (createEndpoint's limit).
    const deleted = await deleteEndpointRow(tx, this.#i.st.tables, {
      tenant,
      id,
      ifVersion: expectedVersion ?? null,
      nowIso: new Date(this.#i.now()).toISOString(),
    });
    if (!deleted) {
      await this.getEndpoint(tx, tenant, id); // throws when it does not exist
      return false;
    }
    return true;
  }

  /**
   * Re-enables a disabled endpoint and clears its failure streak and, when it was disabled, its
   * circuit breaker (disabling failed the deliveries it held; recovered ones go out at once).
   */
  async enableEndpoint(q: Queryable, tenant: string, id: string): Promise<Endpoint> {
    assertStorable({ tenant, id });
    const row = await enableEndpointRow(q, this.#i.st.tables, {
      tenant,
      id,
      nowIso: new Date(this.#i.now()).toISOString(),
    });
    if (!row) throw new EndpointNotFoundError();
    return toEndpoint(row, this.#i.now());
  }

  /**
   * Disables an endpoint (410 Gone, a failure streak, or an operator), fails its queued deliveries
   * (recover them later) and publishes `endpoint.disabled` to the tenant's endpoints subscribed to it.
   * Returns false when it was not enabled.
   */
  async disableEndpoint(tx: Tx, tenant: string, id: string, reason: string): Promise<boolean> {
    assertStorable({ tenant, id, reason });
    const now = new Date(this.#i.now()).toISOString();
    const row = await disableEndpointRow(tx, this.#i.st, { tenant, id, reason, nowIso: now });
    if (!row) return false;
    await this.publish(tx, {
      tenant,
      type: 'endpoint.disabled',
      data: { endpointId: id, url: row.url, reason, disabledAt: now, failedDeliveries: row.failed },
      resource: `webhook_endpoint:${id}`,
    });
    return true;
  }

  /**
   * Starts a secret rotation: a new secret becomes current, the old ones keep signing until
   * `overlapMs` has passed (deliveries carry a signature for each), then drop out.
   */
  async rotateSecret(
    q: Queryable,
    tenant: string,
    id: string,
    overlapMs = 86_400_000,
  ): Promise<{ endpoint: Endpoint; secret: string }> {
    assertStorable({ tenant, id });
    return rotateSecretFor(this, q, { tenant, id, overlapMs });
  }

  /** Queues the event again, to one endpoint or to every subscribed enabled endpoint. Returns how many. */
  async replayEvent(q: Queryable, tenant: string, eventId: string, endpointId?: string): Promise<number> {
    assertStorable({ tenant, eventId, endpointId });
    return insertReplay(q, this.#i.st.tables, {
      tenant,
      eventId,
      endpointId: endpointId ?? null,
      nowIso: new Date(this.#i.now()).toISOString(),
      channel: this.#i.channel,
    });
  }

  /** Re-queues the endpoint's failed deliveries created since `since`, with a fresh schedule. */
  async recoverEndpoint(q: Queryable, tenant: string, endpointId: string, since: Date): Promise<number> {
    assertStorable({ tenant, endpointId });
    assertTimestamp('since', since);
    return requeueFailed(q, this.#i.st.tables, {
      tenant,
      endpointId,
      sinceIso: since.toISOString(),
      nowIso: new Date(this.#i.now()).toISOString(),
      channel: this.#i.channel,
    });
  }

  /**
   * Retention: deletes events older than `olderThanDays` with their deliveries and attempts, in
   * batches of `batchSize` events. Pending deliveries keep their event.
   */
  async purge(options: { olderThanDays: number; batchSize?: number; maxBatches?: number }): Promise<number> {
    const cutoff = new Date(this.#i.now() - options.olderThanDays * 86_400_000).toISOString();
    const batch = options.batchSize ?? 1000;
    let total = 0;
    for (let i = 0; i < (options.maxBatches ?? 100); i++) {
      const n = await purgeBatch(this.#i.sql, this.#i.st.tables, { cutoffIso: cutoff, batchSize: batch });
      total += n;
      if (n < batch) break;
    }
    return total;
  }

  /** The delivery backlog and open breakers, read at once (`/metrics` reads it per scrape). */
  backlog(): Promise<Backlog> {
    return readBacklog(this.#i.sql, this.#i.st.tables);
  }

  /** The schedule a delivery follows. */
  scheduleFor(endpointSchedule: number[] | null, engineSchedule: readonly number[] = DEFAULT_SCHEDULE) {
    return endpointSchedule && endpointSchedule.length > 0 ? endpointSchedule : engineSchedule;
  }
}
