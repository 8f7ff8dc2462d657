// What an endpoint delivers to (issue 36): its kind, the broker URL it connects to, the kind's own
// settings, and the broker credentials. Checked without touching the network when an endpoint is
// created or updated; the broker's host is resolved and checked again at every attempt (./target.ts).
// Credentials are split out of the URL here, stored apart, and never returned: an endpoint shows
// `{ username, password: '[redacted]' }`.
import { InvalidInputError } from '../errors.js';
import { type AllowList, validateWebhookUrl } from '../ssrf/index.js';

/**
 * How an endpoint's events leave: HTTP POST, a publish to a broker confirmed by it, or `poll`: its
 * consumer pulls them through the API with a durable cursor (../poll/).
 */
export type DestinationKind = 'webhook' | 'amqp' | 'nats' | 'mqtt' | 'poll';

/** The kinds that publish to a broker. */
export type BrokerKind = Exclude<DestinationKind, 'webhook' | 'poll'>;

export const DESTINATION_KINDS: readonly DestinationKind[] = ['webhook', 'amqp', 'nats', 'mqtt', 'poll'];

/**
 * The kind's own settings. In `routingKey`, `subject` and `topic`, `{type}` stands for the event's
 * type (`order.shipped`).
 */
export type Destination =
  | Record<string, never>
  | { exchange: string; routingKey: string }
  | { subject: string }
  | { topic: string; qos: 1 };

/** Broker credentials as given (create, update). */
export interface BrokerCredentials {
  username: string;
  password: string;
}

/** Broker credentials as an endpoint shows them: the password never leaves the engine. */
export interface RedactedCredentials {
  username: string;
  password: '[redacted]';
}

/** The URL schemes of each broker kind: the first is plain text, the second TLS. */
const SCHEMES: Record<BrokerKind, readonly [string, string]> = {
  amqp: ['amqp:', 'amqps:'],
  nats: ['nats:', 'tls:'],
  mqtt: ['mqtt:', 'mqtts:'],
};

/** Longest subject, topic, exchange or routing key accepted (AMQP's short strings are 255 bytes). */
const MAX_NAME = 255;

const invalid = (path: string, message: string) =>
  new InvalidInputError(`${path}: ${message}`, [{ path, message }]);

/** The broker's default port when the URL names none. */
export function defaultPort(url: URL): number {
  switch (url.protocol) {
    case 'amqp:':
      return 5672;
    case 'amqps:':
      return 5671;
    case 'mqtt:':
      return 1883;
    case 'mqtts:':
      return 8883;
    default:
      return 4222;
  }
}

/**
 * Checks a broker URL: the kind's schemes only (plain text only with `allowHttp`, as for webhooks),
 * a host, a port, no fragment, and an IP-literal host outside the blocked ranges (the same rules as a
 * webhook URL: validate-url.ts). User info is split out: returned as credentials, never stored in the URL.
 */
export function checkBrokerUrl(
  kind: BrokerKind,
  input: string,
  options: { allowHttp: boolean; allowList: AllowList },
): { url: string; credentials: BrokerCredentials | null } {
  let parsed: URL;
  try {
    parsed = new URL(input);
  } catch {
    throw invalid('/url', 'not an absolute URL');
  }
  const [plain, tls] = SCHEMES[kind];
  if (parsed.protocol !== plain && parsed.protocol !== tls)
    throw invalid(
      '/url',
      `a ${kind} endpoint's URL starts with ${tls}// (or ${plain}// where plain text is allowed)`,
    );
  if (parsed.protocol === plain && !options.allowHttp)
    throw invalid('/url', `${plain}// sends credentials and events in clear text; use ${tls}//`);
  // Percent-encoding checked here: malformed, it is the caller's mistake (a 400), not a URIError
  // later (a 500 at create, or every delivery failing when the AMQP publisher decodes the vhost).
  const decoded = (part: string, what: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      throw invalid('/url', `the ${what} is not valid percent-encoding`);
    }
  };
  const credentials =
    parsed.username === '' && parsed.password === ''
      ? null
      : { username: decoded(parsed.username, 'user name'), password: decoded(parsed.password, 'password') };
  decoded(parsed.pathname, 'path');
  parsed.username = '';
  parsed.password = '';
  if (parsed.hostname === '') throw invalid('/url', 'a broker URL needs a host');
  // The same checks as a webhook URL (length, host, port, fragment, blocked literal), on its http twin.
  let twin: URL;
  try {
    twin = new URL(parsed.href.replace(/^[a-z]+:/, parsed.protocol === plain ? 'http:' : 'https:'));
  } catch {
    throw invalid('/url', 'not an absolute URL with a host');
  }
  const checked = validateWebhookUrl(twin, { allowHttp: true, allowList: options.allowList });
  if (!checked.ok) throw invalid('/url', checked.message);
  if (parsed.search !== '') throw invalid('/url', 'broker URLs take no query; settings go in `destination`');
  return { url: parsed.href, credentials };
}

/** A name (exchange, routing key, subject, topic) of at most 255 characters, without control characters. */
function name(path: string, value: unknown, options: { empty?: boolean } = {}): string {
  if (typeof value !== 'string') throw invalid(path, 'must be a string');
  if (value === '' && !options.empty) throw invalid(path, 'must not be empty');
  if (value.length > MAX_NAME) throw invalid(path, `must be at most ${MAX_NAME} characters`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw invalid(path, 'must not contain control characters');
  return value;
}

/**
 * Checks a kind's settings and fills their defaults: AMQP `{ exchange, routingKey = "{type}" }`,
 * NATS `{ subject }` (no spaces, no wildcards), MQTT `{ topic, qos = 1 }` (no wildcards; QoS 1: the
 * PUBACK is the confirmation). A webhook has none.
 */
export function checkDestination(kind: DestinationKind, input: unknown): Destination {
  if (kind === 'webhook' || kind === 'poll') {
    if (input !== undefined && !(isObject(input) && Object.keys(input).length === 0))
      throw invalid('/destination', `a ${kind} endpoint has no destination settings`);
    return {};
  }
  if (!isObject(input)) throw invalid('/destination', `a ${kind} endpoint needs its destination settings`);
  const allowed = { amqp: ['exchange', 'routingKey'], nats: ['subject'], mqtt: ['topic', 'qos'] }[kind];
  for (const key of Object.keys(input))
    if (!allowed.includes(key)) throw invalid(`/destination/${key}`, `not a setting of a ${kind} endpoint`);
  if (kind === 'amqp') {
    return {
      exchange: name('/destination/exchange', input.exchange, { empty: true }),
      routingKey: name('/destination/routingKey', input.routingKey ?? '{type}'),
    };
  }
  if (kind === 'nats') {
    const subject = name('/destination/subject', input.subject);
    if (/[\s*>]/.test(subject) || subject.split('.').some((t) => t === ''))
      throw invalid('/destination/subject', 'a subject is dot-separated tokens without spaces or wildcards');
    return { subject };
  }
  const topic = name('/destination/topic', input.topic);
  if (/[+#]/.test(topic)) throw invalid('/destination/topic', 'a topic to publish to has no wildcards');
  if (input.qos !== undefined && input.qos !== 1)
    throw invalid('/destination/qos', 'must be 1 (the broker PUBACK is the confirmation)');
  return { topic, qos: 1 };
}

/** Checks credentials given apart from the URL. */
export function checkCredentials(input: unknown): BrokerCredentials | null {
  if (input === null || input === undefined) return null;
  if (!isObject(input)) throw invalid('/credentials', 'must be { username, password } or null');
  for (const key of Object.keys(input))
    if (key !== 'username' && key !== 'password')
      throw invalid(`/credentials/${key}`, 'not a credential field');
  if (typeof input.username !== 'string' || input.username.length > 1024)
    throw invalid('/credentials/username', 'must be a string of at most 1024 characters');
  if (typeof input.password !== 'string' || input.password.length > 4096)
    throw invalid('/credentials/password', 'must be a string of at most 4096 characters');
  return { username: input.username, password: input.password };
}

/** What an endpoint shows of its credentials. */
export const redact = (c: BrokerCredentials | null): RedactedCredentials | null =>
  c === null ? null : { username: c.username, password: '[redacted]' };

/** `{type}` in a routing key, subject or topic replaced by the event's type. */
export const expand = (template: string, type: string) => template.replaceAll('{type}', type);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The stored form of an endpoint's destination: URL (no user info), settings, credentials. */
export interface CheckedDestination {
  url: string;
  destinationJson: string;
  credentialsJson: string | null;
}

/**
 * Checks what a create names: the kind, its URL, settings and credentials (given apart, or as user
 * info in the URL: not both). `checkWebhookUrl` is the engine's webhook URL check.
 */
export function checkEndpointDestination(
  input: { kind?: unknown; url?: string | undefined; destination?: unknown; credentials?: unknown },
  options: { allowHttp: boolean; allowList: AllowList; checkWebhookUrl: (url: string) => string },
): CheckedDestination & { kind: DestinationKind } {
  const kind = (input.kind ?? 'webhook') as DestinationKind;
  if (!DESTINATION_KINDS.includes(kind))
    throw invalid('/kind', `must be one of ${DESTINATION_KINDS.join(', ')}`);
  const destination = checkDestination(kind, input.destination);
  if (kind === 'poll') {
    // Nothing to reach: the consumer comes to the API (GET /v1/webhook-endpoints/{id}/poll).
    if (input.url !== undefined && input.url !== '')
      throw invalid('/url', 'a poll endpoint has no URL: its consumer reads from the API');
    if (input.credentials !== undefined && input.credentials !== null)
      throw invalid('/credentials', 'a poll endpoint has no broker credentials');
    return { kind, url: '', destinationJson: '{}', credentialsJson: null };
  }
  if (input.url === undefined) throw invalid('/url', `a ${kind} endpoint needs a URL`);
  if (kind === 'webhook') {
    if (input.credentials !== undefined && input.credentials !== null)
      throw invalid('/credentials', 'a webhook endpoint has no broker credentials');
    return { kind, url: options.checkWebhookUrl(input.url), destinationJson: '{}', credentialsJson: null };
  }
  const { url, credentials: inUrl } = checkBrokerUrl(kind, input.url, options);
  const given = checkCredentials(input.credentials);
  if (inUrl && given) throw invalid('/credentials', 'credentials given both in the URL and apart');
  const credentials = given ?? inUrl;
  return {
    kind,
    url,
    destinationJson: JSON.stringify(destination),
    credentialsJson: credentials ? JSON.stringify(credentials) : null,
  };
}
