// AMQP 0-9-1 (RabbitMQ) through amqplib: a confirm channel per connection; a publish succeeds when
// the broker confirms it (publisher confirms). The event id is the message's `message_id`, the
// signature headers are AMQP headers. `mandatory`: a message no queue takes comes back (basic.return,
// before its confirmation) and the attempt fails as `unroutable`, where a bare confirm would count
// a message the broker dropped as delivered.

import { expand } from '../config.js';
import { BrokerError, socketError, untilAborted } from '../errors.js';
import { loadPeer } from '../peers.js';
import type { BrokerDriver, BrokerTarget, SignedMessage } from '../types.js';

type Amqplib = typeof import('amqplib');
type ChannelModel = import('amqplib').ChannelModel;
type ConfirmChannel = import('amqplib').ConfirmChannel;

export interface AmqpConnection {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** Message ids the broker returned unroutable, awaiting their confirmation. */
  returned: Set<string>;
  /** The error the channel or connection closed with, for the publishes it fails. */
  closedWith: BrokerError | undefined;
}

/** What a server close (`403 (ACCESS-REFUSED)`, `404 (NOT-FOUND)`) means for the attempt. */
function closeError(error: unknown, what: string): BrokerError {
  const message = String((error as Error | null)?.message ?? error);
  if (/ACCESS[-_]REFUSED|\b403\b/.test(message))
    return new BrokerError(
      what === 'connect' ? 'auth_failed' : 'not_authorized',
      `AMQP ${what}: ${message}`,
      { cause: error },
    );
  if (/NOT[-_]FOUND|\b404\b/.test(message))
    return new BrokerError('unroutable', `AMQP ${what}: ${message}`, { cause: error });
  return socketError(error, `AMQP ${what}`);
}

export const amqp: BrokerDriver<AmqpConnection> = {
  async connect(target: BrokerTarget, signal: AbortSignal): Promise<AmqpConnection> {
    const lib = await loadPeer<Amqplib>('amqp');
    const path = target.url.pathname.slice(1);
    const opening = lib.connect(
      {
        protocol: target.tls ? 'amqps' : 'amqp',
        hostname: target.address,
        port: target.port,
        username: target.credentials?.username ?? 'guest',
        password: target.credentials?.password ?? 'guest',
        vhost: path === '' ? '/' : decodeURIComponent(path),
        heartbeat: 30,
      },
      {
        timeout: target.connectTimeoutMs,
        noDelay: true,
        servername: target.servername,
        ...target.tlsOptions,
      },
    );
    let model: ChannelModel;
    try {
      model = await untilAborted(opening, signal, () => {
        // A connection that opens after all is closed at once.
        opening.then((m) => m.close()).catch(() => {});
        return new BrokerError(
          'connect_timeout',
          `AMQP connect: no connection within ${target.connectTimeoutMs} ms`,
        );
      });
    } catch (error) {
      throw closeError(error, 'connect');
    }
    const c = { model, returned: new Set<string>(), closedWith: undefined } as Omit<
      AmqpConnection,
      'channel'
    > & {
      channel?: ConfirmChannel;
    };
    model.on('error', (error: Error) => {
      c.closedWith ??= closeError(error, 'connection');
    });
    model.on('close', () => {
      c.closedWith ??= new BrokerError('connection_error', 'AMQP connection closed');
    });
    try {
      const channel = await untilAborted(
        model.createConfirmChannel(),
        signal,
        () => new BrokerError('connect_timeout', 'AMQP channel: not opened in time'),
      );
      channel.on('error', (error: Error) => {
        c.closedWith ??= closeError(error, 'publish');
      });
      channel.on('close', () => {
        c.closedWith ??= new BrokerError('connection_error', 'AMQP channel closed');
      });
      channel.on('return', (m: { properties: { messageId?: unknown } }) => {
        if (typeof m.properties.messageId === 'string') c.returned.add(m.properties.messageId);
      });
      c.channel = channel;
    } catch (error) {
      await model.close().catch(() => {});
      throw closeError(error, 'channel');
    }
    return c as AmqpConnection;
  },

  send(c: AmqpConnection, target: BrokerTarget, message: SignedMessage, signal: AbortSignal): Promise<void> {
    const d = target.destination as { exchange: string; routingKey: string };
    const confirmed = new Promise<void>((resolve, reject) => {
      if (c.closedWith) {
        reject(c.closedWith);
        return;
      }
      c.channel.publish(
        d.exchange,
        expand(d.routingKey, message.type),
        Buffer.from(message.body),
        {
          messageId: message.id,
          type: message.type,
          contentType: 'application/json',
          persistent: true,
          mandatory: true,
          timestamp: Math.floor(Number(message.headers['webhook-timestamp'] ?? Date.now() / 1000)),
          headers: message.headers,
        },
        (error: unknown) => {
          if (error) {
            reject(
              c.closedWith ??
                new BrokerError('broker_nack', 'AMQP: the broker did not accept the message (nack)'),
            );
          } else if (c.returned.delete(message.id)) {
            reject(
              new BrokerError(
                'unroutable',
                `AMQP: no queue is bound to exchange "${d.exchange}" for this routing key`,
              ),
            );
          } else resolve();
        },
      );
    });
    return untilAborted(
      confirmed,
      signal,
      () => new BrokerError('timeout', 'AMQP: no publisher confirm in time'),
    );
  },

  usable: (c) => c.closedWith === undefined,

  async close(c: AmqpConnection): Promise<void> {
    c.closedWith ??= new BrokerError('connection_error', 'AMQP connection closed by the worker');
    await c.model.close().catch(() => {});
  },
};
