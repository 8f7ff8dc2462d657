// NATS JetStream through the `nats` client (v2, Node 20): a publish succeeds on the stream's
// PubAck. The event id is the `Nats-Msg-Id` header (`msgID`): the stream drops a second copy
// within its duplicate window, and the PubAck says `duplicate` (a success: the event is there
// once). The signature headers are NATS headers. No stream capturing the subject is `unroutable`.
// The client is told not to learn other servers from the one it reached (`ignoreClusterUpdates`)
// and not to reconnect: every address it connects to is one the SSRF check accepted (target.ts).
import { expand } from '../config.js';
import { BrokerError, socketError, untilAborted } from '../errors.js';
import { loadPeer } from '../peers.js';
import type { BrokerDriver, BrokerTarget, SignedMessage } from '../types.js';

type Nats = typeof import('nats');
type NatsConnection = import('nats').NatsConnection;
type JetStreamClient = import('nats').JetStreamClient;

export interface NatsBrokerConnection {
  lib: Nats;
  nc: NatsConnection;
  js: JetStreamClient;
  closed: boolean;
}

/** A client error, by its code (nats ErrorCode). */
function natsError(error: unknown, what: string): BrokerError {
  if (error instanceof BrokerError) return error;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const message = `NATS ${what}: ${String((error as Error | null)?.message ?? error)}`;
  if (
    code === 'AUTHORIZATION_VIOLATION' ||
    code === 'BAD_AUTHENTICATION' ||
    code === 'AUTHENTICATION_EXPIRED'
  )
    return new BrokerError('auth_failed', message, { cause: error });
  if (code === 'PERMISSIONS_VIOLATION') return new BrokerError('not_authorized', message, { cause: error });
  if (code === '503')
    return new BrokerError('unroutable', `${message} (no JetStream stream captures the subject)`, {
      cause: error,
    });
  if (code === 'TIMEOUT') return new BrokerError('timeout', message, { cause: error });
  if (code === 'CONNECTION_TIMEOUT') return new BrokerError('connect_timeout', message, { cause: error });
  if (code === 'TLS') return new BrokerError('tls_error', message, { cause: error });
  if (code === 'CONNECTION_REFUSED' || code === 'CONNECTION_CLOSED' || code === 'DISCONNECT')
    return new BrokerError('connection_error', message, { cause: error });
  // A JetStream API error (a PubAck with an error: the stream refused the message).
  if (/^\d{3}$/.test(code) || code === 'BAD API')
    return new BrokerError('broker_nack', message, { cause: error });
  return socketError(error, `NATS ${what}`);
}

export const nats: BrokerDriver<NatsBrokerConnection> = {
  async connect(target: BrokerTarget, signal: AbortSignal): Promise<NatsBrokerConnection> {
    const lib = await loadPeer<Nats>('nats');
    const host = target.family === 6 ? `[${target.address}]` : target.address;
    const opening = lib.connect({
      servers: `${host}:${target.port}`,
      ...(target.credentials ? { user: target.credentials.username, pass: target.credentials.password } : {}),
      timeout: target.connectTimeoutMs,
      reconnect: false,
      maxReconnectAttempts: 0,
      ignoreClusterUpdates: true,
      noRandomize: true,
      resolve: false,
      name: 'surety-webhooks',
      // The certificate is checked against the URL's host name, not the checked address the
      // socket goes to (node's tls.connect checks `servername` when given, else the host). The
      // client passes its `tls` object on to tls.connect whole; its type names fewer keys.
      ...(target.tls
        ? { tls: { servername: target.servername, ...target.tlsOptions } as import('nats').TlsOptions }
        : {}),
    });
    let nc: NatsConnection;
    try {
      nc = await untilAborted(opening, signal, () => {
        opening.then((c) => c.close()).catch(() => {});
        return new BrokerError(
          'connect_timeout',
          `NATS connect: no connection within ${target.connectTimeoutMs} ms`,
        );
      });
    } catch (error) {
      throw natsError(error, 'connect');
    }
    const c: NatsBrokerConnection = { lib, nc, js: nc.jetstream(), closed: false };
    void nc.closed().then(() => {
      c.closed = true;
    });
    return c;
  },

  async send(
    c: NatsBrokerConnection,
    target: BrokerTarget,
    message: SignedMessage,
    signal: AbortSignal,
  ): Promise<void> {
    const d = target.destination as { subject: string };
    const h = c.lib.headers();
    for (const [name, value] of Object.entries(message.headers)) h.set(name, value);
    const timeout = Math.max(1, target.timeoutMs);
    try {
      await untilAborted(
        c.js.publish(expand(d.subject, message.type), Buffer.from(message.body), {
          msgID: message.id,
          headers: h,
          timeout,
        }),
        signal,
        () => new BrokerError('timeout', 'NATS: no JetStream ack in time'),
      );
    } catch (error) {
      throw natsError(error, 'publish');
    }
  },

  usable: (c) => !c.closed && !c.nc.isClosed(),

  async close(c: NatsBrokerConnection): Promise<void> {
    c.closed = true;
    await c.nc.close().catch(() => {});
  },
};
