// What a consumer of each broker reads, with the broker's own client: the body, the headers (AMQP
// headers, NATS headers, MQTT v5 user properties) and the broker's de-duplication id.
import { readFileSync } from 'node:fs';
import amqplib from 'amqplib';
import mqtt from 'mqtt';
import { type JetStreamManager, type NatsConnection, connect as natsConnect, type TlsOptions } from 'nats';

export interface Consumed {
  /** The broker's own id: AMQP message_id, Nats-Msg-Id; MQTT has none (the webhook-id property). */
  dedupeId: string | undefined;
  body: string;
  headers: Record<string, string>;
}

export interface Consumer {
  /** Everything that arrived so far (NATS: the stream's messages, read at each call). */
  read(): Promise<Consumed[]>;
  /** Resolves once `n` messages arrived; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<Consumed[]>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function polling(read: () => Promise<Consumed[]>, close: () => Promise<void>): Consumer {
  return {
    read,
    async waitFor(n, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        // A consumer reconnecting after a broker restart may time out once: read again.
        const got = await read().catch(() => [] as Consumed[]);
        if (got.length >= n) return got;
        if (Date.now() > until) throw new Error(`only ${got.length} of ${n} messages arrived`);
        await sleep(25);
      }
    },
    close,
  };
}

const text = (v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v));

/** A queue bound to `exchange` (a topic exchange, declared here) for every routing key. */
export async function amqpConsumer(port: number, exchange: string): Promise<Consumer> {
  const conn = await amqplib.connect(`amqp://guest:guest@127.0.0.1:${port}`);
  const ch = await conn.createChannel();
  await ch.assertExchange(exchange, 'topic', { durable: false, autoDelete: false });
  const q = await ch.assertQueue('', { exclusive: true });
  await ch.bindQueue(q.queue, exchange, '#');
  const got: Consumed[] = [];
  await ch.consume(
    q.queue,
    (m) => {
      if (!m) return;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.properties.headers ?? {})) headers[k] = text(v);
      got.push({
        dedupeId: m.properties.messageId as string | undefined,
        body: m.content.toString('utf8'),
        headers,
      });
    },
    { noAck: true },
  );
  return polling(
    async () => [...got],
    async () => {
      await ch.deleteExchange(exchange).catch(() => {});
      await conn.close().catch(() => {});
    },
  );
}

/** A JetStream stream capturing `<prefix>.>`; read by sequence. */
export async function natsConsumer(
  port: number,
  stream: string,
  prefix: string,
  tls?: { ca: string; servername: string },
): Promise<Consumer> {
  const nc: NatsConnection = await natsConnect({
    servers: `127.0.0.1:${port}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 100,
    // servername reaches tls.connect (the client passes `tls` on whole); its type names fewer keys.
    ...(tls ? { tls: { ca: readFileSync(tls.ca, 'utf8'), servername: tls.servername } as TlsOptions } : {}),
  });
  const jsm: JetStreamManager = await nc.jetstreamManager({ timeout: 2000 });
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], duplicate_window: 120_000_000_000 });
  const readOnce = async () => {
    const info = await jsm.streams.info(stream);
    const out: Consumed[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq });
      const headers: Record<string, string> = {};
      for (const k of m.header?.keys() ?? []) headers[k.toLowerCase()] = m.header.get(k);
      out.push({
        dedupeId: m.header?.get('Nats-Msg-Id') || undefined,
        body: new TextDecoder().decode(m.data),
        headers,
      });
    }
    return out;
  };
  // The first request after a broker restart can time out while the client reconnects: read again.
  const read = () => readOnce().catch(() => readOnce());
  return polling(read, async () => {
    await jsm.streams.delete(stream).catch(() => {});
    await nc.close().catch(() => {});
  });
}

/** A v5 subscriber to `filter` at QoS 1, with a session that survives a broker restart. */
export async function mqttConsumer(port: number, filter: string): Promise<Consumer> {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
    protocolVersion: 5,
    clean: false,
    clientId: `surety-test-${Math.random().toString(36).slice(2)}`,
    properties: { sessionExpiryInterval: 300 },
    reconnectPeriod: 100,
  });
  const got: Consumed[] = [];
  client.on('message', (_topic, payload, packet) => {
    const props = (packet.properties?.userProperties ?? {}) as Record<string, string | string[]>;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(props)) headers[k] = Array.isArray(v) ? v[0]! : v;
    got.push({ dedupeId: undefined, body: payload.toString('utf8'), headers });
  });
  await client.subscribeAsync(filter, { qos: 1 });
  return polling(
    async () => [...got],
    async () => {
      await client.endAsync(true).catch(() => {});
    },
  );
}
