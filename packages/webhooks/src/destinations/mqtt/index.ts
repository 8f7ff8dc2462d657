// MQTT v5 through mqtt.js: a QoS 1 publish succeeds on its PUBACK (a reason code ≥ 0x80 is a
// refusal). The event id and the signature headers travel as v5 user properties (`webhook-id` is
// the de-duplication id; MQTT has no broker-side de-duplication, so the consumer de-duplicates by
// it, as a webhook receiver does). No automatic reconnects: a dropped connection is dropped from the
// pool and the next attempt connects again to a freshly checked address (target.ts).
import { expand } from '../config.js';
import { BrokerError, socketError, untilAborted } from '../errors.js';
import { loadPeer } from '../peers.js';
import type { BrokerDriver, BrokerTarget, SignedMessage } from '../types.js';

type Mqtt = typeof import('mqtt');
type MqttClient = import('mqtt').MqttClient;

export interface MqttConnection {
  client: MqttClient;
}

/** A CONNACK or PUBACK refusal, by its v5 reason code; else a socket failure. */
function mqttError(error: unknown, what: string): BrokerError {
  if (error instanceof BrokerError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = `MQTT ${what}: ${String((error as Error | null)?.message ?? error)}`;
  if (typeof code === 'number') {
    // 0x86 bad user name or password, 0x87 not authorized, 0x8c bad authentication method
    if (what === 'connect' && (code === 0x86 || code === 0x87 || code === 0x8c || code === 4 || code === 5))
      return new BrokerError('auth_failed', message, { cause: error });
    if (code === 0x87) return new BrokerError('not_authorized', message, { cause: error });
    return new BrokerError('broker_nack', message, { cause: error });
  }
  return socketError(error, `MQTT ${what}`);
}

export const mqtt: BrokerDriver<MqttConnection> = {
  async connect(target: BrokerTarget, signal: AbortSignal): Promise<MqttConnection> {
    const lib = await loadPeer<Mqtt>('mqtt');
    const client = lib.connect({
      protocol: target.tls ? 'mqtts' : 'mqtt',
      host: target.address,
      port: target.port,
      servername: target.servername,
      ...(target.tlsOptions as Pick<import('mqtt').IClientOptions, 'ca' | 'rejectUnauthorized'>),
      protocolVersion: 5,
      clean: true,
      connectTimeout: target.connectTimeoutMs,
      reconnectPeriod: 0,
      queueQoSZero: false,
      resubscribe: false,
      ...(target.credentials
        ? { username: target.credentials.username, password: target.credentials.password }
        : {}),
    });
    const connected = new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
      client.once('close', () =>
        reject(new BrokerError('connection_error', 'MQTT connect: the connection closed')),
      );
    });
    // Errors after the connect are seen by the attempts (publishAsync rejects) and `usable`.
    client.on('error', () => {});
    try {
      await untilAborted(
        connected,
        signal,
        () =>
          new BrokerError('connect_timeout', `MQTT connect: no CONNACK within ${target.connectTimeoutMs} ms`),
      );
    } catch (error) {
      client.end(true);
      throw mqttError(error, 'connect');
    }
    return { client };
  },

  async send(
    c: MqttConnection,
    target: BrokerTarget,
    message: SignedMessage,
    signal: AbortSignal,
  ): Promise<void> {
    const d = target.destination as { topic: string; qos: 1 };
    if (!c.client.connected) throw new BrokerError('connection_error', 'MQTT: not connected');
    try {
      await untilAborted(
        c.client.publishAsync(expand(d.topic, message.type), Buffer.from(message.body), {
          qos: 1,
          properties: { contentType: 'application/json', userProperties: { ...message.headers } },
        }),
        signal,
        () => new BrokerError('timeout', 'MQTT: no PUBACK in time'),
      );
    } catch (error) {
      throw mqttError(error, 'publish');
    }
  },

  usable: (c) => c.client.connected && !c.client.disconnecting,

  async close(c: MqttConnection): Promise<void> {
    await c.client.endAsync(true).catch(() => {});
  },
};
