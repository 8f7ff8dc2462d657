// The Webhooks façade (issue 34): builds the engine context (context.ts) and delegates each method to
// its operation `fn(ctx, q, input)` in its concept's folder (publishing/, endpoints/, reads/, …).
import { migrate, type Queryable, type Sql, type Tx } from '@surety/db';
import * as applications from './applications/operations.js';
import { createContext, type WebhooksContext } from './context.js';
import * as endpointChecks from './endpoints/checks.js';
import * as endpoints from './endpoints/operations.js';
import { migrations } from './migrations.js';
import * as poll from './poll/read.js';
import * as publishing from './publishing/publish.js';
import * as requeue from './publishing/requeue.js';
import * as reads from './reads/operations.js';
import type { Page } from './reads/pages.js';
import { type MaintainOptions, type MaintenanceReport, maintain } from './retention/maintain.js';
import { purge } from './retention/purge.js';
import { DEFAULT_SCHEDULE, scheduleFor } from './schedule.js';
import { type Backlog, readBacklog } from './sql/backlog.js';
import type { AllowList } from './ssrf/index.js';
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

/** An engine's context, for the package's own modules (not exported from the package root). */
export let contextOf: (webhooks: Webhooks) => WebhooksContext;

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
  readonly #ctx: WebhooksContext;
  readonly schema: string;
  readonly apiVersion: string;
  readonly allowHttp: boolean;
  readonly allowList: AllowList;
  readonly maxEndpointsPerTenant: number;

  static {
    contextOf = (webhooks) => webhooks.#ctx; // the worker, PollWaits, runMonitor, testing: not the API
  }

  constructor(options: WebhooksOptions) {
    this.#ctx = createContext(options);
    this.schema = this.#ctx.schema;
    this.apiVersion = this.#ctx.apiVersion;
    this.allowHttp = this.#ctx.allowHttp;
    this.allowList = this.#ctx.allowList;
    this.maxEndpointsPerTenant = this.#ctx.maxEndpointsPerTenant;
  }

  async migrate(): Promise<void> {
    await migrate(this.#ctx.sql, { schema: this.schema, sets: [migrations] });
  }

  /**
   * Writes the event and one delivery per subscribed, enabled endpoint, in the caller's
   * transaction: the event exists if and only if the transaction commits. With `application`, the
   * endpoints are that application's; without, the tenant's endpoints of no application. Workers are woken by a
   * NOTIFY sent once the transaction has committed (never for a rolled-back one); a lost NOTIFY
   * only delays delivery to the workers' next poll.
   */
  async publish(tx: Tx | Queryable, input: PublishInput): Promise<PublishedEvent> {
    return publishing.publish(this.#ctx, tx, input);
  }

  /** Checks a URL the way endpoint creation does; throws WebhookError `SURETY_INVALID_URL`. */
  checkUrl(url: string): string {
    return endpointChecks.checkUrl(this.#ctx, url);
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
    return endpoints.createEndpoint(this.#ctx, q, input);
  }

  /** The endpoint, or undefined when it is not the tenant's (a lookup never throws for a missing one). */
  async getEndpoint(q: Queryable, ref: EndpointRef): Promise<Endpoint | undefined> {
    return endpoints.getEndpoint(this.#ctx, q, ref);
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
  async readPoll(sql: Sql, input: poll.ReadPollInput): Promise<poll.PollPage> {
    return poll.readPoll(this.#ctx, sql, input);
  }

  /**
   * Acknowledges every event of a poll endpoint up to `cursor` (one it returned): the cursor moves
   * there, never back, and the deliveries it passes are delivered. In the caller's transaction.
   */
  async ackPoll(tx: Tx, input: poll.AckPollInput): Promise<{ cursor: string; acknowledged: number }> {
    return poll.ackPoll(this.#ctx, tx, input);
  }

  /**
   * Changes an endpoint if it is still at `ifVersion` (optimistic concurrency); resolves to
   * undefined when another write came first, and throws EndpointNotFoundError when it does not exist.
   */
  async updateEndpoint(q: Queryable, input: UpdateEndpointInput): Promise<Endpoint | undefined> {
    return endpoints.updateEndpoint(this.#ctx, q, input);
  }

  /**
   * Deletes an endpoint and fails its queued deliveries (history is kept until retention). With
   * `ifVersion`, only that version: resolves to false when the endpoint is at another one.
   * Throws EndpointNotFoundError when it does not exist.
   */
  async deleteEndpoint(tx: Tx, input: DeleteEndpointInput): Promise<boolean> {
    return endpoints.deleteEndpoint(this.#ctx, tx, input);
  }

  /**
   * Re-enables a disabled endpoint and clears its failure streak and, when it was disabled, its
   * circuit breaker (disabling failed the deliveries it held; recovered ones go out at once).
   * Throws EndpointNotFoundError when it does not exist.
   */
  async enableEndpoint(q: Queryable, ref: EndpointRef): Promise<Endpoint> {
    return endpoints.enableEndpoint(this.#ctx, q, ref);
  }

  /**
   * Disables an endpoint (410 Gone, a failure streak, or an operator), fails its queued deliveries
   * (recover them later) and publishes `endpoint.disabled` to the tenant's endpoints subscribed to it.
   * Returns false when it was disabled already; throws EndpointNotFoundError when it does not exist.
   */
  async disableEndpoint(tx: Tx, input: DisableEndpointInput): Promise<boolean> {
    return endpoints.disableEndpoint(this.#ctx, tx, input);
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
    return endpoints.rotateSecret(this.#ctx, q, input);
  }

  /**
   * Queues the event again, to one endpoint or to every subscribed enabled endpoint. Returns how
   * many: 0 for an event that is not the tenant's (a count of what matched, docs/decisions.md).
   */
  async replayEvent(q: Queryable, input: ReplayEventInput): Promise<number> {
    return requeue.replayEvent(this.#ctx, q, input);
  }

  /**
   * Re-queues the endpoint's failed deliveries created since `since`, with a fresh schedule; how
   * many. Throws EndpointNotFoundError when the endpoint does not exist.
   */
  async recoverEndpoint(q: Queryable, input: RecoverEndpointInput): Promise<number> {
    return requeue.recoverEndpoint(this.#ctx, q, input);
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
    return applications.createApplication(this.#ctx, q, input);
  }

  /** The application named by id (`app_…`) or uid, or undefined when it is not the tenant's. */
  async getApplication(q: Queryable, ref: ApplicationRef): Promise<Application | undefined> {
    return applications.getApplication(this.#ctx, q, ref);
  }

  /** A tenant's applications, newest first (`Page.nextCursor` for the next page). */
  async listApplications(
    q: Queryable,
    input: applications.ListApplicationsInput,
  ): Promise<Page<Application>> {
    return applications.listApplications(this.#ctx, q, input);
  }

  /**
   * Changes an application if it is still at `ifVersion`; resolves to undefined when another
   * write came first. Throws ApplicationNotFoundError when it does not exist,
   * ApplicationUidTakenError when another application has the new uid.
   */
  async updateApplication(q: Queryable, input: UpdateApplicationInput): Promise<Application | undefined> {
    return applications.updateApplication(this.#ctx, q, input);
  }

  /**
   * Deletes an application and its endpoints, each as deleteEndpoint does (its queued deliveries
   * fail with `endpoint_deleted`); its events stay until retention. With `ifVersion`, only that
   * version: false when it is at another. Throws ApplicationNotFoundError when it does not exist.
   */
  async deleteApplication(tx: Tx, input: DeleteApplicationInput): Promise<boolean> {
    return applications.deleteApplication(this.#ctx, tx, input);
  }

  /** A tenant's endpoints, newest first (`Page.nextCursor` for the next page). */
  listEndpoints(q: Queryable, input: reads.ListEndpointsInput): Promise<Page<Endpoint>> {
    return reads.listEndpoints(this.#ctx, q, input);
  }

  /** An endpoint's health over the last 24 hours; undefined when it is not the tenant's. */
  getEndpointHealth(q: Queryable, ref: EndpointRef): Promise<reads.EndpointHealth | undefined> {
    return reads.getEndpointHealth(this.#ctx, q, ref);
  }

  /** A tenant's events, newest first; filters by type, creation time and resource. */
  listEvents(q: Queryable, input: reads.ListEventsInput): Promise<Page<reads.EventRecord>> {
    return reads.listEvents(this.#ctx, q, input);
  }

  /** The event, or undefined when it is not the tenant's. */
  getEvent(q: Queryable, ref: reads.EventRef): Promise<reads.EventRecord | undefined> {
    return reads.getEvent(this.#ctx, q, ref);
  }

  /** Deliveries of an endpoint or of an event, newest first; optional status filter. */
  listDeliveries(q: Queryable, input: reads.ListDeliveriesInput): Promise<Page<reads.DeliveryRecord>> {
    return reads.listDeliveries(this.#ctx, q, input);
  }

  /** The attempts of one delivery, oldest first; undefined when the delivery is not the tenant's. */
  listAttempts(q: Queryable, input: reads.ListAttemptsInput): Promise<reads.AttemptRecord[] | undefined> {
    return reads.listAttempts(this.#ctx, q, input);
  }

  /**
   * Retention by DELETE: deletes events older than `olderThanDays` with their deliveries and
   * attempts, in batches of `batchSize` events. Pending deliveries keep their event. `maintain`
   * drops whole partitions instead, at no cost per row; this stays for a schedule of its own.
   */
  async purge(options: { olderThanDays: number; batchSize?: number; maxBatches?: number }): Promise<number> {
    return purge(this.#ctx, options);
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
    return maintain(this.#ctx, options);
  }

  /** The delivery backlog and open breakers, read at once (`/metrics` reads it per scrape). */
  backlog(): Promise<Backlog> {
    return readBacklog(this.#ctx.sql, this.#ctx.st.tables);
  }

  /** The schedule a delivery follows. */
  scheduleFor(endpointSchedule: number[] | null, engineSchedule: readonly number[] = DEFAULT_SCHEDULE) {
    return scheduleFor(endpointSchedule, engineSchedule);
  }
}
