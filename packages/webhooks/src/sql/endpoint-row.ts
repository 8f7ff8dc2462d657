// An endpoint row as selected, and its mapping to the public Endpoint (internal: not exported from the root).
import { redactAuth, type StoredAuth } from '../auth/config.js';
import {
  type BrokerCredentials,
  type Destination,
  type DestinationKind,
  redact,
} from '../destinations/config.js';
import type { Endpoint, EndpointFilter, SecretEntry, ThrottleState } from '../types.js';
import { iso } from './values.js';

export interface EndpointRow {
  id: string;
  application_id: string | null;
  url: string;
  description: string;
  event_types: string[];
  format: 'surety' | 'standard';
  secrets: SecretEntry[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  retry_schedule: number[] | null;
  rate_limit: number | null;
  ordered: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
  last_success_at: Date | null;
  last_failure_at: Date | null;
  failing_since: Date | null;
  circuit_failures: number;
  circuit_opened_at: Date | null;
  circuit_probe_at: Date | null;
  trace_context: boolean;
  headers: Record<string, string>;
  filter: EndpointFilter | null;
  kind: DestinationKind;
  destination: Destination;
  /** Never leaves the engine: toEndpoint redacts it. */
  credentials: BrokerCredentials | null;
  /** Never leaves the engine: toEndpoint redacts it (auth/config.ts). */
  auth: StoredAuth | null;
  throttle_at: Date | null;
  throttle_until: Date | null;
  throttle_rate: number | null;
  throttle_step: number | null;
  throttle_cap: number | null;
  throttle_max_cap: number | null;
  throttle_pause_until: Date | null;
  throttle_decreases: number;
}

/** The throttle as of `nowMs`: the same arithmetic as the claim's (sql/throttle.ts). */
function throttleOf(r: EndpointRow, nowMs: number): ThrottleState {
  const until = r.throttle_until === null ? null : new Date(r.throttle_until).getTime();
  const active = until !== null && until > nowMs && r.throttle_at !== null;
  const pausedUntil =
    r.throttle_pause_until !== null && new Date(r.throttle_pause_until).getTime() > nowMs
      ? iso(r.throttle_pause_until)
      : null;
  const seconds = active ? (nowMs - new Date(r.throttle_at!).getTime()) / 1000 : 0;
  const rate = active && r.throttle_rate !== null ? r.throttle_rate + (r.throttle_step ?? 0) * seconds : null;
  return {
    state: pausedUntil !== null ? 'paused' : active ? 'throttled' : 'none',
    inFlightCap:
      active && r.throttle_cap !== null
        ? Math.min(r.throttle_max_cap ?? Number.MAX_SAFE_INTEGER, r.throttle_cap + Math.floor(seconds))
        : null,
    rate: rate === null ? null : Math.round(Math.min(rate, r.rate_limit ?? rate) * 100) / 100,
    since: active ? iso(r.throttle_at) : null,
    until: active ? iso(r.throttle_until) : null,
    pausedUntil,
    decreases: r.throttle_decreases,
  };
}

/** The row's endpoint; the breaker's state as of `nowMs` (open until its probe is due). */
export const toEndpoint = (r: EndpointRow, nowMs: number = Date.now()): Endpoint => ({
  id: r.id,
  applicationId: r.application_id,
  url: r.url,
  description: r.description,
  eventTypes: r.event_types,
  format: r.format,
  status: r.status,
  disabledReason: r.disabled_reason,
  disabledAt: iso(r.disabled_at),
  retrySchedule: r.retry_schedule,
  rateLimit: r.rate_limit,
  ordered: r.ordered,
  traceContext: r.trace_context,
  headers: r.headers,
  filter: r.filter,
  kind: r.kind,
  destination: r.kind === 'webhook' || r.kind === 'poll' ? null : r.destination,
  credentials: redact(r.credentials),
  auth: redactAuth(r.auth),
  version: r.version,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
  lastSuccessAt: iso(r.last_success_at),
  lastFailureAt: iso(r.last_failure_at),
  failingSince: iso(r.failing_since),
  circuit: {
    state:
      r.circuit_opened_at === null
        ? 'closed'
        : r.circuit_probe_at !== null && new Date(r.circuit_probe_at).getTime() > nowMs
          ? 'open'
          : 'half_open',
    consecutiveFailures: r.circuit_failures,
    openedAt: iso(r.circuit_opened_at),
    nextProbeAt: iso(r.circuit_probe_at),
  },
  throttle: throttleOf(r, nowMs),
});

export const ENDPOINT_COLUMNS =
  'id, url, description, event_types, format, secrets, status, disabled_reason, disabled_at, retry_schedule, ' +
  'rate_limit, ordered, version, created_at, updated_at, last_success_at, last_failure_at, failing_since, ' +
  'circuit_failures, circuit_opened_at, circuit_probe_at, trace_context, application_id, headers, filter, ' +
  'kind, destination, credentials, auth, throttle_at, throttle_until, throttle_rate, throttle_step, ' +
  'throttle_cap, throttle_max_cap, throttle_pause_until, throttle_decreases';
