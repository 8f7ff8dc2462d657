// The coded errors of a broker attempt. Each `code` is stored with the attempt, as a webhook's
// transport codes are (ssrf/errors.ts, whose `connect_timeout`, `timeout`, `connection_error`,
// `tls_error`, `ssrf_blocked` and `dns_failed` brokers share).
import { isTlsErrorCode } from '../ssrf/errors.js';

/** Why a publish to a broker was not confirmed. Stable: stored with each attempt. */
export type BrokerErrorCode =
  /** The broker's client package is not installed (peers.ts). */
  | 'missing_peer'
  /** The broker refused the credentials (AMQP 403 at connect, NATS authorization violation, MQTT CONNACK 0x86/0x87). */
  | 'auth_failed'
  /** Connected, but the publish is not permitted (AMQP 403 on the channel, NATS permissions, MQTT PUBACK 0x87). */
  | 'not_authorized'
  /** Nothing takes the message: AMQP exchange missing (404) or the message returned unroutable; no JetStream stream captures the subject. */
  | 'unroutable'
  /** The broker answered the publish with a refusal (AMQP nack, a JetStream error, an MQTT PUBACK reason ≥ 0x80). */
  | 'broker_nack'
  /** No connection within the connect timeout. */
  | 'connect_timeout'
  /** Connected, but no confirmation within the attempt's timeout. */
  | 'timeout'
  | 'tls_error'
  /** Refused, reset, closed before the confirmation, or any other socket failure. */
  | 'connection_error';

/** A publish to a broker that was not confirmed. */
export class BrokerError extends Error {
  readonly code: BrokerErrorCode;
  constructor(code: BrokerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BrokerError';
    this.code = code;
  }
}

/** Socket-level failures, by Node's error codes. */
export function socketError(error: unknown, what: string): BrokerError {
  if (error instanceof BrokerError) return error;
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (code === 'ETIMEDOUT')
    return new BrokerError('connect_timeout', `${what}: ${message}`, { cause: error });
  if (isTlsErrorCode(code) || /certificate|SSL|TLS/i.test(code))
    return new BrokerError('tls_error', `${what}: ${message}`, { cause: error });
  return new BrokerError('connection_error', `${what}: ${message}`, { cause: error });
}

/** Rejects with `make()` when `signal` aborts; otherwise settles as `promise` does. */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  make: () => BrokerError,
): Promise<T> {
  if (signal.aborted) return Promise.reject(make());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(make());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
