// The /v1 shapes the dashboard reads (apps/server/src/routes/schemas.ts and routes/webhooks.ts), and
// the contract between the router and its views. Types only: nothing here is served or run.

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
export interface Page<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** The endpoint's circuit breaker: open waits for one probe attempt, half_open is probing. */
export interface Circuit {
  state: 'closed' | 'open' | 'half_open';
  consecutiveFailures: number;
  openedAt: string | null;
  nextProbeAt: string | null;
}

/** Adaptive throttling: after 429/503 or slow answers, a lowered in-flight cap and rate that grow back. */
export interface Throttle {
  state: 'none' | 'throttled' | 'paused';
  inFlightCap: number | null;
  rate: number | null;
  since: string | null;
  until: string | null;
  pausedUntil: string | null;
  decreases: number;
}

export interface EndpointHealth {
  attempts24h: number;
  successRate24h: number | null;
  pendingDeliveries: number;
}

export interface Endpoint {
  id: string;
  object: 'webhook_endpoint';
  url: string;
  /** How events leave (issue 36): HTTP POST, or a broker's publish; absent from an older server. */
  kind?: 'webhook' | 'amqp' | 'nats' | 'mqtt' | 'poll';
  /** A broker endpoint's settings (exchange and routing key, subject, topic). */
  destination?: Record<string, string | number> | null;
  /** The application (the tenant's customer) it belongs to; null: the tenant's own. */
  applicationId?: string | null;
  description?: string;
  eventTypes: string[];
  format: 'surety' | 'standard';
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  disabledAt: string | null;
  retrySchedule: number[] | null;
  rateLimit: number | null;
  ordered: boolean;
  traceContext: boolean;
  /** The payload filter (docs/webhooks.md "Payload filters"); null: every event of its types. */
  filter?: Record<string, unknown> | null;
  /** Receiver authentication (docs/receiver-auth.md), redacted; absent from an older server. */
  auth?:
    | { type: 'basic'; username: string }
    | { type: 'oauth2'; tokenUrl: string; clientId: string; scope: string | null; audience: string | null }
    | { type: 'mtls'; certificateFingerprint: string; notAfter: string; subject: string }
    | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  failingSince: string | null;
  /** Absent from a server that predates the breaker. */
  circuit?: Circuit;
  /** Absent from a server that predates adaptive throttling. */
  throttle?: Throttle;
  /** Only in the answer for one endpoint (not in the list). */
  health?: EndpointHealth;
  /** Only in the answer to creation and rotation. */
  secret?: string;
}

export interface SuretyEvent {
  id: string;
  object: 'event';
  type: string;
  apiVersion: string;
  createdAt: string;
  sequence: number;
  resource: string | null;
  data: unknown;
}

export interface Delivery {
  id: string;
  object: 'delivery';
  eventId: string;
  eventType: string | null;
  endpointId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
}

export interface Attempt {
  id: string;
  object: 'attempt';
  deliveryId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  /** null: no HTTP answer (connection refused, timeout, refused by the SSRF guard). */
  status: number | null;
  responseExcerpt: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/** An application: one of the tenant's customers, with its own endpoints (docs/applications.md). */
export interface Application {
  id: string;
  object: 'application';
  uid: string | null;
  name: string;
  metadata?: Record<string, unknown>;
  createdAt: string;
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
