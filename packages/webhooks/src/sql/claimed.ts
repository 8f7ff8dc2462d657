// A claimed delivery as the claim's take returns it (claim.ts), with its event and endpoint.
import type { StoredAuth } from '../auth/config.js';
import type { BrokerCredentials, Destination, DestinationKind } from '../destinations/config.js';
import type { SecretEntry } from '../types.js';

/** A claimed delivery with its event and endpoint (null when they were deleted meanwhile). */
export interface Claimed {
  id: string;
  tenant: string;
  endpoint_id: string;
  attempts: number;
  event_id: string;
  type: string | null;
  api_version: string;
  created_at: Date;
  sequence: string;
  data: string;
  url: string | null;
  secrets: SecretEntry[] | null;
  format: 'surety' | 'standard';
  endpoint_status: string | null;
  retry_schedule: number[] | null;
  rate_limit: number | null;
  /** The publisher's W3C trace context (migration 000010); null when none was active. */
  trace_context: unknown;
  /** Whether the endpoint sends `traceparent` to the receiver; null when it was deleted. */
  endpoint_trace_context: boolean | null;
  /** The endpoint's custom headers (migration 000013); null when it was deleted. */
  endpoint_headers: Record<string, string> | null;
  /** The endpoint's kind (migration 000018, destinations/): `webhook`, `amqp`, `nats`, `mqtt`. */
  kind: DestinationKind;
  /** A broker endpoint's settings and credentials (never logged, never returned). */
  destination: Destination;
  credentials: BrokerCredentials | null;
  /** The endpoint's receiver authentication (migration 000019, auth/; never logged, never returned). */
  endpoint_auth: StoredAuth | null;
}
