// Broker destinations (issue 36): one folder per kind with the same verbs (types.ts BrokerDriver:
// connect, send → the broker's confirmation, usable, close), pooled connections (pool.ts), the
// broker host checked by the SSRF rules at every attempt (target.ts). Everything else a delivery
// goes through (the outbox, the claim, the schedule, disable, replay, attempts, the breaker, the
// fairness caps) is the webhook path's, unchanged: the worker calls `publish` where it would POST.
import type { AllowList, Resolver } from '../ssrf/index.js';
import { amqp } from './amqp/index.js';
import type { BrokerCredentials, BrokerKind, Destination, DestinationKind } from './config.js';
import { BrokerError } from './errors.js';
import { mqtt } from './mqtt/index.js';
import { nats } from './nats/index.js';
import { BrokerPool, type PoolOptions } from './pool.js';
import { brokerTarget } from './target.js';
import type { BrokerDriver, BrokerTlsOptions, SignedMessage } from './types.js';

export type { BrokerErrorCode } from './errors.js';
export { BrokerError } from './errors.js';
export type { SignedMessage } from './types.js';

/** What a publish needs of a claimed delivery. */
export interface BrokerEndpointRow {
  tenant: string;
  endpoint_id: string;
  kind: DestinationKind;
  url: string | null;
  destination: Destination;
  credentials: BrokerCredentials | null;
}

/** Publishes one signed event to a broker endpoint; resolves on the broker's confirmation. */
export type PublishFn = (row: BrokerEndpointRow, message: SignedMessage, timeoutMs: number) => Promise<void>;

const DRIVERS: Record<BrokerKind, BrokerDriver<unknown>> = {
  amqp: amqp as BrokerDriver<unknown>,
  nats: nats as BrokerDriver<unknown>,
  mqtt: mqtt as BrokerDriver<unknown>,
};

/** Options of {@link createBrokerPublisher}. */
export interface BrokerPublisherOptions extends PoolOptions {
  /** Private ranges broker hosts may be in (development, tests); the engine's `allowList`. */
  allowList: AllowList;
  /** Inject in tests: never let a test reach real DNS. @default systemResolver */
  resolver?: Resolver;
  /** @default 5000 */
  connectTimeoutMs?: number;
  /** TLS trust for `amqps:`, `tls:` and `mqtts:` brokers: the worker passes its `guard.tls` (a private CA). */
  tls?: BrokerTlsOptions;
}

/** The worker's publisher: `publish` for its attempts, `close` when it stops. */
export function createBrokerPublisher(options: BrokerPublisherOptions): {
  publish: PublishFn;
  close: () => Promise<void>;
  pool: BrokerPool;
} {
  const pool = new BrokerPool(options);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  const publish: PublishFn = async (row, message, timeoutMs) => {
    const driver = row.kind === 'webhook' || row.kind === 'poll' ? undefined : DRIVERS[row.kind];
    if (!driver || row.url === null)
      throw new BrokerError('connection_error', `not a broker endpoint: ${row.kind}`);
    const signal = AbortSignal.timeout(timeoutMs);
    const target = await brokerTarget({
      url: row.url,
      credentials: row.credentials,
      destination: row.destination,
      allowList: options.allowList,
      connectTimeoutMs: Math.min(connectTimeoutMs, timeoutMs),
      ...(options.resolver ? { resolver: options.resolver } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
    });
    // The pool key: never shared across tenants or endpoints; a new URL, credential, setting or DNS answer opens anew.
    const key = JSON.stringify([
      row.tenant,
      row.endpoint_id,
      row.kind,
      row.url,
      row.credentials,
      row.destination,
      target.address,
    ]);
    await pool.send(driver, key, { ...target, timeoutMs }, message, signal);
  };
  return { publish, close: () => pool.close(), pool };
}
