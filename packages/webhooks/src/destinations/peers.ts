// The broker clients are optional peer dependencies: loaded on the first attempt to an endpoint of
// their kind, so an application with webhooks only never loads (nor needs) them. A missing client
// is an attempt error with the code `missing_peer` and a message naming the package to install.
import { BrokerError } from './errors.js';

/** The npm package each broker kind needs. */
export const PEERS = { amqp: 'amqplib', nats: 'nats', mqtt: 'mqtt' } as const;

/** A broker kind's client is not installed: `npm install <packageName>`. */
export class MissingBrokerClientError extends BrokerError {
  readonly packageName: string;
  constructor(packageName: string, kind: string, options?: { cause?: unknown }) {
    super(
      'missing_peer',
      `${kind} endpoints need the optional package ${packageName}, which is not installed: run \`npm install ${packageName}\``,
      options,
    );
    this.name = 'MissingBrokerClientError';
    this.packageName = packageName;
  }
}

const loaded = new Map<string, Promise<unknown>>();

/**
 * Imports a broker client once. The imports are written out (not a variable) so that bundlers see
 * them; `importer` is for tests.
 */
export function loadPeer<T>(
  kind: keyof typeof PEERS,
  importer: () => Promise<unknown> = IMPORTERS[kind],
): Promise<T> {
  const name = PEERS[kind];
  let p = loaded.get(name);
  if (!p) {
    p = importer().catch((error: unknown) => {
      loaded.delete(name);
      const code = (error as { code?: unknown } | null)?.code;
      if (
        (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
        String((error as Error).message).includes(name)
      )
        throw new MissingBrokerClientError(name, kind, { cause: error });
      throw error;
    });
    if (importer === IMPORTERS[kind]) loaded.set(name, p);
  }
  return p as Promise<T>;
}

const IMPORTERS: Record<keyof typeof PEERS, () => Promise<unknown>> = {
  amqp: () => import('amqplib'),
  nats: () => import('nats'),
  mqtt: () => import('mqtt'),
};
