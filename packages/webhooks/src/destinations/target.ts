// A broker's host goes through the same SSRF rules as a webhook URL (ssrf/resolve.ts): resolved at
// every attempt, refused if ANY answer is blocked (outside the allow-list), and the connection made
// to the address that was checked, never to the name (no second lookup a rebinding DNS server could
// answer differently). Clients are told not to follow a broker's cluster hints (NATS `connect_urls`)
// or to reconnect on their own: every address they reach is one checked here.
import { type AllowList, type Resolver, resolveTarget, WebhookUrlError } from '../ssrf/index.js';
import { type BrokerCredentials, type Destination, defaultPort } from './config.js';
import type { BrokerTarget, BrokerTlsOptions } from './types.js';

const TLS_SCHEMES = new Set(['amqps:', 'tls:', 'mqtts:']);

/** Resolves and checks the broker's host; the target to connect to, or SsrfBlockedError / DnsError. */
export async function brokerTarget(input: {
  url: string;
  credentials: BrokerCredentials | null;
  destination: Destination;
  resolver?: Resolver;
  allowList: AllowList;
  connectTimeoutMs: number;
  tls?: BrokerTlsOptions;
}): Promise<Omit<BrokerTarget, 'timeoutMs'>> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw new WebhookUrlError('invalid_url', 'the stored broker URL does not parse');
  }
  const checked = await resolveTarget(url.hostname, {
    allowList: input.allowList,
    timeoutMs: input.connectTimeoutMs,
    ...(input.resolver ? { resolver: input.resolver } : {}),
  });
  return {
    url,
    address: checked.address,
    family: checked.family,
    port: url.port === '' ? defaultPort(url) : Number(url.port),
    tls: TLS_SCHEMES.has(url.protocol),
    servername: checked.hostname,
    tlsOptions: input.tls ?? {},
    credentials: input.credentials,
    destination: input.destination,
    connectTimeoutMs: input.connectTimeoutMs,
  };
}
