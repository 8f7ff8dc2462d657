// The shape every broker destination shares (amqp/, nats/, mqtt/): one connection per pooled
// target, and `send(connection, message, signal)` that resolves on the broker's confirmation.
import type { Destination } from './config.js';

/** Where one attempt goes: the checked address, the URL's other parts, the credentials. */
export interface BrokerTarget {
  /** The broker URL without user info, as stored. */
  url: URL;
  /** The address the SSRF check accepted: the only one connected to (target.ts). */
  address: string;
  family: 4 | 6;
  port: number;
  tls: boolean;
  /** The URL's host name: TLS server name (SNI and certificate check). */
  servername: string;
  /** The operator's TLS trust for broker connections (the guard's `tls`: a private CA). */
  tlsOptions: BrokerTlsOptions;
  credentials: { username: string; password: string } | null;
  destination: Destination;
  connectTimeoutMs: number;
  /** The whole attempt's bound (the broker's own publish timeout where a client has one). */
  timeoutMs: number;
}

/** Operator TLS settings shared with the webhook transport (`guard.tls`). */
export interface BrokerTlsOptions {
  ca?: string | Buffer | Array<string | Buffer>;
  rejectUnauthorized?: boolean;
}

/** One signed event, ready to publish. */
export interface SignedMessage {
  /** The event id: the broker's de-duplication id. */
  id: string;
  /** The event type (`{type}` in subjects, routing keys and topics). */
  type: string;
  /** The envelope, exactly as signed. */
  body: string;
  /** The signature headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), the endpoint's own headers, content type. */
  headers: Record<string, string>;
}

/** A broker client for one kind (amqp/, nats/, mqtt/). */
export interface BrokerDriver<C> {
  /** Opens a connection to the checked address; rejects within `target.connectTimeoutMs`. */
  connect(target: BrokerTarget, signal: AbortSignal): Promise<C>;
  /** Publishes and resolves on the broker's confirmation; rejects with a coded error. */
  send(connection: C, target: BrokerTarget, message: SignedMessage, signal: AbortSignal): Promise<void>;
  /** Whether the connection can still be used. */
  usable(connection: C): boolean;
  close(connection: C): Promise<void>;
}
