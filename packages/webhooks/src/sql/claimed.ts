// A claimed delivery as the claim's take returns it (claim.ts), with its event and endpoint; the claim's values.
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

/** The endpoint's columns of a claimed row: the take sends them on one row per endpoint only. */
const ENDPOINT_COLUMNS = [
  'url',
  'secrets',
  'format',
  'endpoint_status',
  'retry_schedule',
  'rate_limit',
  'endpoint_trace_context',
  'endpoint_headers',
  'kind',
  'destination',
  'credentials',
  'endpoint_auth',
] as const satisfies readonly (keyof Claimed)[];

/**
 * The take's rows with their endpoint's columns: each endpoint's arrive on the row marked
 * `endpoint_first` (its lowest id in the claim), and are copied to its other rows (the same values,
 * shared: the worker only reads them). Rows keep the take's order.
 */
export function withEndpoints<R extends Claimed & { endpoint_first: boolean }>(rows: R[]): R[] {
  if (rows.length < 2) return rows;
  const firsts = new Map<string, R>();
  for (const r of rows) if (r.endpoint_first) firsts.set(`${r.tenant}\u0000${r.endpoint_id}`, r);
  for (const r of rows) {
    if (r.endpoint_first) continue;
    const first = firsts.get(`${r.tenant}\u0000${r.endpoint_id}`);
    if (!first) throw new Error(`the take returned no endpoint row for ${r.id}`); // not by construction
    for (const column of ENDPOINT_COLUMNS) (r as Claimed)[column] = first[column] as never;
  }
  return rows;
}

/** The claim's values: `claimWindow` is how many rows it reads at most; `mine*`, this worker's counts. */
export type ClaimParams = readonly [
  now: string,
  limit: number,
  leaseUntil: string,
  workerId: string,
  claimWindow: number,
  maxInFlightPerEndpoint: number,
  maxInFlightPerTenant: number,
  mineTenants: readonly string[],
  mineEndpointIds: readonly string[],
  mineCounts: readonly number[],
];

/** The pick's parameters: the claim's values but the lease's end, which only the take sets. */
export const pickParams = ([now, limit, , ...rest]: ClaimParams) => [now, limit, ...rest];
