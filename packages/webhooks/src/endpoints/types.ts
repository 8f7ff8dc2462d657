// An endpoint's public data types: the endpoint as read, its inputs and its patch.
import type { EndpointAuth, EndpointAuthInput } from '../auth/config.js';
import type {
  BrokerCredentials,
  Destination,
  DestinationKind,
  RedactedCredentials,
} from '../destinations/config.js';

export interface SecretEntry {
  secret: string;
  /** When a rotated-out secret stops being used; null for the current one. */
  expiresAt: string | null;
}

export interface Endpoint {
  id: string;
  /** The application it belongs to (`app_…`), for life; null for the tenant's own endpoints. */
  applicationId: string | null;
  url: string;
  description: string;
  eventTypes: string[];
  format: 'surety' | 'standard';
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  disabledAt: string | null;
  retrySchedule: number[] | null;
  rateLimit: number | null;
  ordered: boolean;
  /** Whether attempts send the W3C `traceparent` of their span to the receiver (docs/observability.md). */
  traceContext: boolean;
  /** Custom headers sent with every attempt (`{ name: value }`; AMQP / NATS headers, MQTT user properties). */
  headers: Record<string, string>;
  /** The payload filter (docs/webhooks.md "Payload filters"); null: every event of its types. */
  filter: EndpointFilter | null;
  /** How events leave: `webhook` (HTTP POST to `url`) or a broker's (`url` is the broker's, docs/destinations.md). */
  kind: DestinationKind;
  /** A broker endpoint's settings (exchange and routing key, subject, topic and QoS); null for a webhook. */
  destination: Destination | null;
  /** A broker endpoint's credentials, redacted: the password is never returned. */
  credentials: RedactedCredentials | null;
  /**
   * The receiver authentication (docs/receiver-auth.md), redacted: `{ type, username }`,
   * `{ type, tokenUrl, clientId, … }` or `{ type, certificateFingerprint, notAfter, subject }`; never a
   * password, client secret or private key. Null: none.
   */
  auth: EndpointAuth | null;
  version: number;
  createdAt: string;
  updatedAt: string;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  failingSince: string | null;
  /** The endpoint's circuit breaker (docs/webhooks.md). */
  circuit: CircuitState;
  /** Adaptive throttling of the endpoint (docs/webhooks.md "Adaptive throttling"). */
  throttle: ThrottleState;
}

/**
 * An endpoint's adaptive throttle. `none`: the worker's caps and the endpoint's `rateLimit` only.
 * `throttled`: it answered 429/503 (or its latency climbed) since `since`; its in-flight cap and rate
 * were lowered then and grow back by a slot and by `rate`'s step every second. `paused`: its
 * Retry-After asked that nothing be sent before `pausedUntil`. Values as of the read.
 */
export interface ThrottleState {
  state: 'none' | 'throttled' | 'paused';
  /** Attempts in flight it may have now; null while not throttled (the worker's cap). */
  inFlightCap: number | null;
  /** Deliveries per second it may get now (the lower of this and `rateLimit` applies); null: no adaptive rate. */
  rate: number | null;
  /** The last decrease; null while not throttled. */
  since: string | null;
  /** The throttle ends then unless the endpoint throttles again; null while not throttled. */
  until: string | null;
  /** Its Retry-After; null unless paused. */
  pausedUntil: string | null;
  /** Decreases since the endpoint was created. */
  decreases: number;
}

/**
 * An endpoint's circuit breaker. `closed`: deliveries go out on their own schedules. `open`: after
 * `consecutiveFailures` failed attempts in a row, every pending delivery waits behind one probe
 * attempt at `nextProbeAt`. `half_open`: the probe is due or in flight; its success closes the
 * breaker (the held deliveries go out), its failure sets a later `nextProbeAt`.
 */
export interface CircuitState {
  state: 'closed' | 'open' | 'half_open';
  /** Failed attempts since the last success. */
  consecutiveFailures: number;
  /** When the breaker opened; null while closed. */
  openedAt: string | null;
  /** When the probe attempt is due; null while closed. */
  nextProbeAt: string | null;
}

export interface CreateEndpointInput {
  tenant: string;
  /**
   * A webhook's https URL, or a broker's (`amqps://host/vhost`, `tls://host:4222`, `mqtts://host`;
   * plain `amqp:` / `nats:` / `mqtt:` only with `allowHttp`). User info in a broker URL is taken
   * out and kept as the credentials. None for a `poll` endpoint (its consumer reads from the API).
   */
  url?: string;
  /** @default "webhook" */
  kind?: DestinationKind;
  /** A broker endpoint's settings (required for one; see Destination). */
  destination?: unknown;
  /** A broker endpoint's credentials (or user info in `url`); never returned. */
  credentials?: BrokerCredentials | null;
  eventTypes: string[];
  description?: string;
  /** @default "surety" */
  format?: 'surety' | 'standard';
  /** Seconds after the first attempt; null uses the engine's schedule. */
  retrySchedule?: number[] | null;
  /** Deliveries per second, enforced across all workers. */
  rateLimit?: number | null;
  /** One delivery in flight at a time, in sequence order. @default false */
  ordered?: boolean;
  /**
   * Send the attempt span's W3C `traceparent` (and `tracestate`) to the receiver, when an
   * OpenTelemetry SDK is registered. @default true
   */
  traceContext?: boolean;
  /**
   * The application it belongs to, by id (`app_…`) or uid; it then receives only the events
   * published to that application. Throws ApplicationNotFoundError when the tenant has no such one.
   */
  applicationId?: string;
  /**
   * Custom headers sent with every attempt, `{ name: value }`. Names are RFC 9110 tokens, compared
   * case-insensitively; reserved ones (RESERVED_HEADERS, RESERVED_HEADER_PREFIXES) and values with
   * CR, LF, NUL or other control characters throw InvalidHeadersError. At most MAX_HEADERS.
   * @default {}
   */
  headers?: Record<string, string>;
  /**
   * Only events passing this filter are delivered (null or omitted: every event of its types).
   * Throws InvalidFilterError for one outside the language or its bounds. A test event, or a
   * replay naming the endpoint, reaches it whatever its filter.
   */
  filter?: EndpointFilter | null;
  /**
   * How the receiver authenticates the sender (a webhook endpoint only): basic credentials, OAuth2
   * client credentials, or an mTLS client certificate and key. Checked when written (InvalidAuthError);
   * secrets are stored and never returned. On update the whole auth is replaced; null removes it.
   */
  auth?: EndpointAuthInput | null;
}

/**
 * A payload filter: `{ "data.amount": { "$gt": 100 }, "type": { "$in": ["order.paid"] } }`. Keys are
 * paths into `{ type, resource, data }` or `$and`/`$or`/`$not`; a path's condition is a literal
 * (equality) or operators (`$eq $ne $gt $gte $lt $lte $in $nin $exists $not`). Bounded by
 * FILTER_LIMITS; docs/webhooks.md "Payload filters" has the semantics.
 */
export type EndpointFilter = { [key: string]: unknown };

/** One endpoint of one tenant: what a lookup or a one-endpoint mutation names. */
export interface EndpointRef {
  tenant: string;
  /** The endpoint's id (`we_…`). */
  id: string;
}

/** What `updateEndpoint` may change. */
export type EndpointPatch = Partial<
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
    | 'headers'
    | 'filter'
    | 'destination'
    | 'credentials'
    | 'auth'
  >
>;

export interface UpdateEndpointInput extends EndpointRef {
  /** The version the change is meant for (optimistic concurrency: `If-Match`). */
  ifVersion: number;
  patch: EndpointPatch;
}

export interface DeleteEndpointInput extends EndpointRef {
  /** Delete only this version; omitted: whatever version it is at. */
  ifVersion?: number;
}

export interface DisableEndpointInput extends EndpointRef {
  /** Why, as stored in `disabledReason` and sent in `endpoint.disabled`. */
  reason: string;
}

export interface RotateSecretInput extends EndpointRef {
  /** How long the old secrets keep signing. @default 86400000 (24 hours) */
  overlapMs?: number;
}
