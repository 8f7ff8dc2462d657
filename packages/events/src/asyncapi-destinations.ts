// A tenant's broker destinations in its AsyncAPI document (issue 36): one server per broker (host
// and protocol, never credentials), one channel per destination whose address is the routing key,
// subject or topic (`{type}` becomes the channel parameter `type`, its values the subscribed event
// types), and one `send` operation per destination, with the protocol's bindings: AMQP exchange and
// routing key, NATS subject (and the Nats-Msg-Id de-duplication header), MQTT topic and QoS 1.
import type { AsyncApiDocument } from './asyncapi.js';

/** One broker destination as the document describes it (from the endpoint, without credentials). */
export interface DestinationChannel {
  /** The endpoint's id (`we_…`): the channel's, server's and operation's key. */
  id: string;
  kind: 'amqp' | 'nats' | 'mqtt';
  /** The broker URL without user info (the API's `url`). */
  url: string;
  /** The kind's settings (the API's `destination`). */
  destination: { exchange?: string; routingKey?: string; subject?: string; topic?: string };
  /** The event types it is subscribed to; `*` for every one. */
  eventTypes: readonly string[];
  description?: string;
}

const PROTOCOLS: Record<string, string> = {
  'amqp:': 'amqp',
  'amqps:': 'amqps',
  'nats:': 'nats',
  'tls:': 'nats',
  'mqtt:': 'mqtt',
  'mqtts:': 'secure-mqtt',
};

/** The channel's address and the names of its parameters. */
function address(d: DestinationChannel): string {
  const s = d.destination;
  return (d.kind === 'amqp' ? (s.routingKey ?? '{type}') : d.kind === 'nats' ? s.subject : s.topic) ?? '';
}

/**
 * Adds each broker destination to `doc` (a copy is returned; `doc` is left as it is). Messages are
 * the document's own (`components.messages`): a destination subscribed to a type the document does
 * not describe lists only the types it does.
 * @example
 * const doc = withDestinations(serviceContract(events), [{ id: 'we_1', kind: 'nats',
 *   url: 'tls://nats.example.com:4222', destination: { subject: 'acme.{type}' }, eventTypes: ['*'] }]);
 */
export function withDestinations(
  doc: AsyncApiDocument,
  destinations: readonly DestinationChannel[],
): AsyncApiDocument {
  if (destinations.length === 0) return doc;
  const out = structuredClone(doc);
  const known = Object.keys(out.components?.messages ?? {});
  const servers = ((out.servers as Record<string, unknown> | undefined) ?? {}) as Record<string, unknown>;
  const channels = out.channels ?? {};
  const operations = out.operations ?? {};
  out.channels = channels;
  out.operations = operations;
  for (const d of destinations) {
    const url = new URL(d.url);
    const key = d.id;
    const types = d.eventTypes.includes('*') ? known : known.filter((t) => d.eventTypes.includes(t));
    const path = url.pathname.slice(1);
    servers[key] = {
      host: url.host,
      protocol: PROTOCOLS[url.protocol] ?? d.kind,
      ...(d.kind === 'amqp' ? { pathname: `/${path}` } : {}),
      title: `Your ${d.kind.toUpperCase()} broker (endpoint ${d.id})`,
      description:
        'The broker you registered for this endpoint; Surety connects with the credentials you gave it.',
    };
    const messages: Record<string, unknown> = {};
    for (const t of types) messages[t] = { $ref: `#/components/messages/${t}` };
    const addr = address(d);
    const hasType = addr.includes('{type}');
    channels[key] = {
      address: addr,
      title: `${d.kind.toUpperCase()} destination ${d.id}`,
      ...(d.description ? { description: d.description } : {}),
      servers: [{ $ref: `#/servers/${key}` }],
      messages,
      ...(hasType
        ? {
            parameters: {
              type: {
                description: 'The event type (`type` in the envelope).',
                ...(types.length > 0 ? { enum: types } : {}),
              },
            },
          }
        : {}),
      ...(d.kind === 'amqp'
        ? {
            bindings: {
              amqp: {
                is: 'routingKey',
                exchange: {
                  name: d.destination.exchange ?? '',
                  vhost: path === '' ? '/' : decodeURIComponent(path),
                },
                bindingVersion: '0.3.0',
              },
            },
          }
        : {}),
    };
    operations[`publish_${key}`] = {
      action: 'send',
      channel: { $ref: `#/channels/${key}` },
      title: `Publish to ${d.kind.toUpperCase()} destination ${d.id}`,
      summary:
        d.kind === 'amqp'
          ? 'Published persistent and mandatory; a publisher confirm is the delivery. The event id is the message_id.'
          : d.kind === 'nats'
            ? 'Published to JetStream; the PubAck is the delivery. The event id is the Nats-Msg-Id header.'
            : 'Published at QoS 1; the PUBACK is the delivery. The event id is the webhook-id user property.',
      messages: types.map((t) => ({ $ref: `#/channels/${key}/messages/${t}` })),
      ...(d.kind === 'amqp'
        ? { bindings: { amqp: { deliveryMode: 2, mandatory: true, bindingVersion: '0.3.0' } } }
        : d.kind === 'mqtt'
          ? { bindings: { mqtt: { qos: 1, retain: false, bindingVersion: '0.2.0' } } }
          : { 'x-surety-dedupe-header': 'Nats-Msg-Id' }),
    };
  }
  out.servers = servers;
  return out;
}
