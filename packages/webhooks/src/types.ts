// The engine's public data types: its options, a publish and a replay; an endpoint's are in
// endpoints/types.ts, an application's in applications/types.ts (re-exported here).
import type { Sql } from '@surety/db';
import type { AllowList } from './ssrf/index.js';

export interface WebhooksOptions {
  sql: Sql;
  /** @default "surety" */
  schema?: string;
  /** Sent as `apiVersion` in every envelope. @default "2026-11-01" */
  apiVersion?: string;
  /** Let endpoint URLs use plain http (development, tests). @default false */
  allowHttp?: boolean;
  /** Private ranges endpoint URLs may reach (development, tests): `SURETY_WEBHOOK_ALLOWED_CIDRS`. @default [] */
  allowList?: AllowList;
  /**
   * Checks an event's payload before it is written (the event registry plugs in here); throw
   * InvalidEventError to refuse it.
   */
  validate?: (type: string, data: unknown) => void;
  /** Injected clock. @default Date.now */
  now?: () => number;
  /**
   * Most endpoints one tenant may have; a create beyond it throws EndpointLimitError. Generous: a
   * platform tenant may have an endpoint per customer of its own.
   * @default 10000
   */
  maxEndpointsPerTenant?: number;
}

export interface PublishInput {
  tenant: string;
  /** `noun.verb`, lower case: `order.shipped`. */
  type: string;
  data: unknown;
  /** The resource the event is about (`order:ord_1`); its events carry increasing sequences. */
  resource?: string;
  /** Your own event id, for idempotent publishing. @default a new `evt_…` */
  id?: string;
  /**
   * Deliver to this endpoint only, whatever event types it is subscribed to (test events: the
   * endpoint is named, so the event reaches it), if it is enabled.
   */
  endpointId?: string;
  /**
   * The application (id `app_…` or the tenant's uid) whose subscribed endpoints receive the event,
   * and only they. Omitted: the tenant's endpoints that belong to no application (docs/applications.md).
   * Throws ApplicationNotFoundError when the tenant has no such application.
   */
  application?: string;
  /**
   * Every subscribed endpoint but this one (operational events: the endpoint an event is about
   * never receives it, so a failing endpoint subscribed to its own failures cannot feed itself).
   */
  exceptEndpointId?: string;
}

export interface PublishedEvent {
  id: string;
  sequence: number;
  createdAt: string;
  /** How many deliveries were queued (one per subscribed enabled endpoint). */
  deliveries: number;
  /**
   * The application it was published to (`app_…`, resolved from a uid); for an event to a named
   * endpoint, that endpoint's. Null for the tenant's own event.
   */
  applicationId: string | null;
}

export interface ReplayEventInput {
  tenant: string;
  eventId: string;
  /** Only to this endpoint; omitted: every subscribed enabled endpoint. */
  endpointId?: string;
}

export interface RecoverEndpointInput {
  tenant: string;
  endpointId: string;
  /** Failed deliveries created at or after this instant are queued again. */
  since: Date;
}

export type * from './applications/types.js';
export type * from './endpoints/types.js';
