import { EVENT_TYPE_PATTERN as TYPE } from '@surety/core';
import { migrate, type Queryable, type Sql, type Tx } from '@surety/db';
import {
  createApplicationFor,
  deleteApplicationFor,
  findApplication,
  type ListApplicationsInput,
  listApplicationsFor,
  resolveApplication,
  updateApplicationFor,
} from './applications.js';
import {
  checkEndpointFields,
  createEndpointFor,
  deleteEndpointFor,
  disableEndpointFor,
  enableEndpointFor,
  findEndpoint,
  rotateSecretFor,
  updateEndpointFor,
} from './endpoint-writes.js';
import { InvalidEventError, WebhookError } from './errors.js';
import { FILTER_MAX_DATA_DEPTH, nestsDeeperThan } from './filter/depth.js';
import { newId } from './ids.js';
import { assertStorable, assertTimestamp } from './input.js';
import { setInternals, type WebhooksInternals } from './internals.js';
import { migrations } from './migrations.js';
import { CommitNotifier } from './notify.js';
import type { Page } from './pages.js';
import { type MaintainOptions, type MaintenanceReport, maintainPartitions } from './partitions.js';
import {
  type AckPollInput,
  ackPollFor,
  type PollPage,
  type ReadPollInput,
  readPollFor,
} from './poll/read.js';
import {
  type AttemptRecord,
  type DeliveryRecord,
  type EndpointHealth,
  type EventRecord,
  type EventRef,
  endpointHealth,
  getEvent,
  type ListAttemptsInput,
  type ListDeliveriesInput,
  type ListEndpointsInput,
  type ListEventsInput,
  listAttempts,
  listDeliveries,
  listEndpoints,
  listEvents,
} from './queries.js';
import { recoverEndpointFor, replayEventFor } from './requeue.js';
import { DEFAULT_SCHEDULE } from './schedule.js';
import { type Backlog, readBacklog } from './sql/backlog.js';
import { statements } from './sql/index.js';
import { notifyChannel } from './sql/names.js';
import { databaseNow } from './sql/partitions.js';
import { insertEvent } from './sql/publish.js';
import { purgeBatch } from './sql/retention.js';
import type { AllowList } from './ssrf/index.js';
import { validateWebhookUrl } from './ssrf/index.js';
import { publishingContext } from './tracing.js';
import type {
  Application,
  ApplicationRef,
  CreateApplicationInput,
  CreateEndpointInput,
  DeleteApplicationInput,
  DeleteEndpointInput,
  DisableEndpointInput,
  Endpoint,
  EndpointRef,
  PublishedEvent,
  PublishInput,
  RecoverEndpointInput,
  ReplayEventInput,
  RotateSecretInput,
  UpdateApplicationInput,
  UpdateEndpointInput,
  WebhooksOptions,
} from './types.js';

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
      dbNow: databaseNow,
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
   * transaction: the event exists if and only if the transaction commits. With `application`, the
   * endpoints are that application's; without, the tenant's endpoints of no application. Workers are woken by a
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
    const applicationId =
      input.application === undefined
        ? null
        : await resolveApplication(this, tx, {
            tenant: input.tenant,
            ref: input.application,
            field: 'application',
          });
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
      applicationId,
      chosenId: input.id !== undefined,
      filterable: !nestsDeeperThan(input.data, FILTER_MAX_DATA_DEPTH),
      exceptEndpointId: input.exceptEndpointId ?? null,
    });
    const deliveries = written.deliveries;
    if (deliveries > 0) {
      if ('afterCommit' in tx) tx.afterCommit(this.#wake);
      else this.#wake();
    }
    return {
      id,
      sequence: Number(written.sequence),
      createdAt,
      deliveries,
      applicationId: written.applicationId,
    };
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
    checkEndpointFields(input); // first: a NUL in a header value is a header problem
    assertStorable({ ...input });
    return createEndpointFor(this, q, input);
  }

  /** The endpoint, or undefined when it is not the tenant's (a lookup never throws for a missing one). */
  async getEndpoint(q: Queryable, ref: EndpointRef): Promise<Endpoint | undefined> {
    assertStorable({ tenant: ref.tenant, id: ref.id });
    return findEndpoint(this, q, ref);
  }

  /**
   * Reads a poll endpoint's events past its acknowledged cursor (or past `after`), in cursor order,
   * in a transaction of its own on `sql` (never a wait: PollWaits waits between reads). Throws
   * EndpointNotFoundError (also for a cursor of another endpoint), NotPollEndpointError, and
   * WebhookError `SURETY_INVALID_CURSOR` for a token this endpoint did not return.
   * @example
   * const page = await webhooks.readPoll(sql, { tenant, id: 'we_…', limit: 100 });
   * for (const item of page.data) handle(JSON.parse(item.envelope));
   * await sql.transaction((tx) => webhooks.ackPoll(tx, { tenant, id: 'we_…', cursor: page.cursor }));
   */
  async readPoll(sql: Sql, input: ReadPollInput): Promise<PollPage> {
    assertStorable({ tenant: input.tenant, id: input.id, after: input.after });
    return readPollFor(this, sql, input);
  }

  /**
   * Acknowledges every event of a poll endpoint up to `cursor` (one it returned): the cursor moves
   * there, never back, and the deliveries it passes are delivered. In the caller's transaction.
   */
  async ackPoll(tx: Tx, input: AckPollInput): Promise<{ cursor: string; acknowledged: number }> {
    assertStorable({ tenant: input.tenant, id: input.id, cursor: input.cursor });
    return ackPollFor(this, tx, input);
  }

  /**
   * Changes an endpoint if it is still at `ifVersion` (optimistic concurrency); resolves to
   * undefined when another write came first, and throws EndpointNotFoundError when it does not exist.
   */
  async updateEndpoint(q: Queryable, input: UpdateEndpointInput): Promise<Endpoint | undefined> {
    checkEndpointFields(input.patch);
    assertStorable({ tenant: input.tenant, id: input.id, ...input.patch });
    return updateEndpointFor(this, q, input);
  }

  /**
   * Deletes an endpoint and fails its queued deliveries (history is kept until retention). With
   * `ifVersion`, only that version: resolves to false when the endpoint is at another one.
   * Throws EndpointNotFoundError when it does not exist.
   */
  async deleteEndpoint(tx: Tx, input: DeleteEndpointInput): Promise<boolean> {
    assertStorable({ tenant: input.tenant, id: input.id });
    return deleteEndpointFor(this, tx, input);
  }

  /**
   * Re-enables a disabled endpoint and clears its failure streak and, when it was disabled, its
   * circuit breaker (disabling failed the deliveries it held; recovered ones go out at once).
   * Throws EndpointNotFoundError when it does not exist.
   */
  async enableEndpoint(q: Queryable, ref: EndpointRef): Promise<Endpoint> {
    assertStorable({ tenant: ref.tenant, id: ref.id });
    return enableEndpointFor(this, q, ref);
  }

  /**
   * Disables an endpoint (410 Gone, a failure streak, or an operator), fails its queued deliveries
   * (recover them later) and publishes `endpoint.disabled` to the tenant's endpoints subscribed to it.
   * Returns false when it was disabled already; throws EndpointNotFoundError when it does not exist.
   */
  async disableEndpoint(tx: Tx, input: DisableEndpointInput): Promise<boolean> {
    assertStorable({ tenant: input.tenant, id: input.id, reason: input.reason });
    return disableEndpointFor(this, tx, input);
  }

  /**
   * Starts a secret rotation: a new secret becomes current, the old ones keep signing until
   * `overlapMs` has passed (deliveries carry a signature for each), then drop out.
   * Throws EndpointNotFoundError when it does not exist.
   */
  async rotateSecret(
    q: Queryable,
    input: RotateSecretInput,
  ): Promise<{ endpoint: Endpoint; secret: string }> {
    assertStorable({ tenant: input.tenant, id: input.id });
    return rotateSecretFor(this, q, input);
  }

  /**
   * Queues the event again, to one endpoint or to every subscribed enabled endpoint. Returns how
   * many: 0 for an event that is not the tenant's (a count of what matched, docs/decisions.md).
   */
  async replayEvent(q: Queryable, input: ReplayEventInput): Promise<number> {
    assertStorable({ tenant: input.tenant, eventId: input.eventId, endpointId: input.endpointId });
    return replayEventFor(this, q, input);
  }

  /**
   * Re-queues the endpoint's failed deliveries created since `since`, with a fresh schedule; how
   * many. Throws EndpointNotFoundError when the endpoint does not exist.
   */
  async recoverEndpoint(q: Queryable, input: RecoverEndpointInput): Promise<number> {
    assertStorable({ tenant: input.tenant, endpointId: input.endpointId });
    assertTimestamp('since', input.since);
    return recoverEndpointFor(this, q, input);
  }

  /**
   * Creates an application, a customer of the tenant with endpoints of its own
   * (docs/applications.md). Throws ApplicationUidTakenError when another has the uid, leaving the
   * caller's transaction usable.
   * @example
   * const app = await webhooks.createApplication(sql, { tenant, uid: 'cus_42', name: 'Acme' });
   * await webhooks.createEndpoint(sql, { tenant, applicationId: 'cus_42', url, eventTypes: ['*'] });
   * await webhooks.publish(tx, { tenant, application: 'cus_42', type: 'invoice.paid', data });
   */
  async createApplication(q: Queryable, input: CreateApplicationInput): Promise<Application> {
    assertStorable({ ...input });
    return createApplicationFor(this, q, input);
  }

  /** The application named by id (`app_…`) or uid, or undefined when it is not the tenant's. */
  async getApplication(q: Queryable, ref: ApplicationRef): Promise<Application | undefined> {
    assertStorable({ tenant: ref.tenant, id: ref.id });
    return findApplication(this, q, ref);
  }

  /** A tenant's applications, newest first (`Page.nextCursor` for the next page). */
  async listApplications(q: Queryable, input: ListApplicationsInput): Promise<Page<Application>> {
    assertStorable({ tenant: input.tenant });
    return listApplicationsFor(this, q, input);
  }

  /**
   * Changes an application if it is still at `ifVersion`; resolves to undefined when another
   * write came first. Throws ApplicationNotFoundError when it does not exist,
   * ApplicationUidTakenError when another application has the new uid.
   */
  async updateApplication(q: Queryable, input: UpdateApplicationInput): Promise<Application | undefined> {
    assertStorable({ tenant: input.tenant, id: input.id, ...input.patch });
    return updateApplicationFor(this, q, input);
  }

  /**
   * Deletes an application and its endpoints, each as deleteEndpoint does (its queued deliveries
   * fail with `endpoint_deleted`); its events stay until retention. With `ifVersion`, only that
   * version: false when it is at another. Throws ApplicationNotFoundError when it does not exist.
   */
  async deleteApplication(tx: Tx, input: DeleteApplicationInput): Promise<boolean> {
    assertStorable({ tenant: input.tenant, id: input.id });
    return deleteApplicationFor(this, tx, input);
  }

  /** A tenant's endpoints, newest first (`Page.nextCursor` for the next page). */
  listEndpoints(q: Queryable, input: ListEndpointsInput): Promise<Page<Endpoint>> {
    return listEndpoints(this, q, input);
  }

  /** An endpoint's health over the last 24 hours; undefined when it is not the tenant's. */
  getEndpointHealth(q: Queryable, ref: EndpointRef): Promise<EndpointHealth | undefined> {
    return endpointHealth(this, q, ref);
  }

  /** A tenant's events, newest first; filters by type, creation time and resource. */
  listEvents(q: Queryable, input: ListEventsInput): Promise<Page<EventRecord>> {
    return listEvents(this, q, input);
  }

  /** The event, or undefined when it is not the tenant's. */
  getEvent(q: Queryable, ref: EventRef): Promise<EventRecord | undefined> {
    return getEvent(this, q, ref);
  }

  /** Deliveries of an endpoint or of an event, newest first; optional status filter. */
  listDeliveries(q: Queryable, input: ListDeliveriesInput): Promise<Page<DeliveryRecord>> {
    return listDeliveries(this, q, input);
  }

  /** The attempts of one delivery, oldest first; undefined when the delivery is not the tenant's. */
  listAttempts(q: Queryable, input: ListAttemptsInput): Promise<AttemptRecord[] | undefined> {
    return listAttempts(this, q, input);
  }

  /**
   * Retention by DELETE: deletes events older than `olderThanDays` with their deliveries and
   * attempts, in batches of `batchSize` events. Pending deliveries keep their event. `maintain`
   * drops whole partitions instead, at no cost per row; this stays for a schedule of its own.
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

  /**
   * Partition maintenance, for a job every hour or so (the service's runs beside its worker):
   * creates the history's partition windows `ahead` windows past now, and drops every window that
   * ended more than `retentionDays` ago, whole (DROP TABLE, no DELETE), except a window that still
   * holds a pending delivery or an event a pending delivery belongs to: it is reported in `held`
   * and dropped at a later run once they are delivered or failed. Safe to run from several
   * processes at once (one at a time per schema).
   */
  maintain(options: MaintainOptions): Promise<MaintenanceReport> {
    return maintainPartitions(this, options);
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
