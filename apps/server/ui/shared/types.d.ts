// The /v1 shapes the dashboard reads, and the contract between the router and its views. Types
// only: nothing here is served or run. The resources are @surety/webhooks' own types (imported from
// its public entry, type-only: the browser never loads it), plus what the routes add to an answer
// (apps/server/src/routes: `object`, an endpoint's health and once-shown secret): a field the package
// renames or retypes fails the UI's typecheck (`npm run typecheck`) instead of drifting (issue 34).
import type * as W from '@surety/webhooks';

/** RFC 9457 problem+json, as the service sends it. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  /** Validation problems: each refused field, as a JSON pointer into the request's part. */
  errors?: Array<{ in?: string; path?: string; message?: string }>;
}

/** A cursor-paged list. */
export interface Page<T> extends W.Page<T> {
  object: 'list';
}

/** The endpoint's circuit breaker: open waits for one probe attempt, half_open is probing. */
export type Circuit = W.CircuitState;

/** Adaptive throttling: after 429/503 or slow answers, a lowered in-flight cap and rate that grow back. */
export type Throttle = W.ThrottleState;

/** How events leave: `webhook` (HTTP POST), a broker's publish (`amqp`, `nats`, `mqtt`), or `poll`. */
export type DestinationKind = W.DestinationKind;

/** The health the answer for one endpoint carries (the timestamps are the endpoint's own fields). */
export type EndpointHealth = Pick<W.EndpointHealth, 'attempts24h' | 'successRate24h' | 'pendingDeliveries'>;

/** An endpoint as /v1 answers it: the package's, named, with the answer-only parts. */
export interface Endpoint extends W.Endpoint {
  object: 'webhook_endpoint';
  /** Only in the answer for one endpoint (not in the list). */
  health?: EndpointHealth;
  /** Only in the answer to creation and rotation. */
  secret?: string;
}

export interface SuretyEvent extends W.EventRecord {
  object: 'event';
}

export interface Delivery extends W.DeliveryRecord {
  object: 'delivery';
}

/** `status` null: no HTTP answer (a webhook's transport error, or any broker attempt: `errorCode` null is the broker's confirmation). */
export interface Attempt extends W.AttemptRecord {
  object: 'attempt';
}

/** An application: one of the tenant's customers, with its own endpoints (docs/applications.md). */
export interface Application extends Omit<W.Application, 'version' | 'updatedAt'> {
  object: 'application';
  updatedAt?: string;
}

/** A portal session: `url` opens the portal, with `token` in its fragment. */
export interface PortalSession {
  id: string;
  url: string;
  token: string;
  expiresAt: string;
}

/** An event type of the catalogue (GET /v1/event-types): the service's own and the tenant's. */
export interface EventType {
  name: string;
  description?: string | null;
  schema?: unknown;
  examples?: unknown[];
  deprecated?: boolean;
}

/** A view's handle on the router, made for one navigation. */
export interface ViewContext {
  /**
   * Whether the caller may change things: false in a read-only portal session, whose views show no
   * write action (the service refuses them anyway).
   */
  canWrite: boolean;
  /** Whether the view is still the one shown (a late answer must not draw over the next view). */
  alive(): boolean;
  /** Shows an error of a background action. */
  fail(error: unknown): void;
  /** Registers `refresh` (resolves to "still pending?"); starts polling at once if `active`. */
  poll(refresh: () => Promise<boolean | undefined>, active: boolean): void;
  /** Polls (again) for a while: after an action that queued work. */
  startPolling(): void;
  /** Moves to `hash`, saying `message` once the next view is shown. */
  navigate(hash: string, message?: string): void;
}

/** What a view gives the router to show. */
export interface ViewResult {
  title: string;
  node: Node;
  /** Breadcrumb trail: [label, href]. */
  crumbs?: Array<[string, string]>;
}

export type View<P> = (params: P, ctx: ViewContext) => Promise<ViewResult>;

/** What `h` and `replaceChildren` accept as children: null, undefined and false are skipped. */
export type Child = Node | string | number | null | undefined | false | Child[];

/** `h`'s props: `class`, `dataset`, `on<event>` listeners, anything else an attribute. */
export type Props = Record<string, unknown> & { dataset?: Record<string, string> };

/**
 * One endpoint page, as its parts see it: the version shown (owned by the page instance, replaced by
 * `refresh`) and how to re-read everything.
 */
export interface EndpointPage {
  id: string;
  ctx: ViewContext;
  shown: { endpoint: Endpoint; etag: string | null };
  /** Re-reads the endpoint and its deliveries and redraws; resolves to "deliveries pending?". */
  refresh(): Promise<boolean>;
}
