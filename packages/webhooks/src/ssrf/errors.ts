// Errors of the SSRF guard and of a guarded delivery attempt. Each carries a stable `code` that the
// delivery worker stores with the attempt and that operators can search for; `cause` keeps the
// underlying undici / socket / DNS error.

/** Why a delivery attempt did not produce an HTTP response. Stable: stored with each attempt. */
export type DeliveryErrorCode =
  /** The URL failed {@link validateWebhookUrl} at delivery time (see `reason`). */
  | 'invalid_url'
  /** The target resolved to (or was) an address in a blocked range. No connection was made. */
  | 'ssrf_blocked'
  /** The name did not resolve, returned nothing, or the lookup timed out. */
  | 'dns_failed'
  /** No TCP (and TLS) connection within `connectTimeoutMs`. */
  | 'connect_timeout'
  /** Connected, but the response headers or body did not arrive within `timeoutMs`. */
  | 'timeout'
  /** TLS handshake or certificate verification failed. */
  | 'tls_error'
  /** Refused, reset, closed early, or any other socket failure. */
  | 'connection_error';

/** Base class: every error thrown by `guardedPost` is one of these. */
export class DeliveryError extends Error {
  readonly code: DeliveryErrorCode;
  constructor(code: DeliveryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DeliveryError';
    this.code = code;
  }
}

/** The address a name resolved to, with the range that blocked it. */
export interface BlockedAddress {
  readonly address: string;
  /** The range's category, e.g. `loopback`, `private`, `link-local`. */
  readonly category: string;
}

/** The target is, or resolved to, a blocked address. Nothing was sent. */
export class SsrfBlockedError extends DeliveryError {
  declare readonly code: 'ssrf_blocked';
  readonly hostname: string;
  readonly blocked: readonly BlockedAddress[];
  /** Every address the name resolved to, blocked or not. */
  readonly addresses: readonly string[];
  constructor(hostname: string, blocked: readonly BlockedAddress[], addresses: readonly string[] = []) {
    const list = blocked.map((b) => `${b.address} (${b.category})`).join(', ');
    super('ssrf_blocked', `${hostname} resolves to a blocked address: ${list}`);
    this.name = 'SsrfBlockedError';
    this.hostname = hostname;
    this.blocked = blocked;
    this.addresses = addresses;
  }
}

/** DNS resolution failed, returned no address, or timed out. */
export class DnsError extends DeliveryError {
  declare readonly code: 'dns_failed';
  readonly hostname: string;
  constructor(hostname: string, message: string, options?: { cause?: unknown }) {
    super('dns_failed', message, options);
    this.name = 'DnsError';
    this.hostname = hostname;
  }
}

/** A webhook URL was refused; `reason` says why (see {@link UrlRejectionReason}). */
export class WebhookUrlError extends DeliveryError {
  declare readonly code: 'invalid_url';
  readonly reason: string;
  constructor(reason: string, message: string) {
    super('invalid_url', message);
    this.name = 'WebhookUrlError';
    this.reason = reason;
  }
}

/** `SURETY_WEBHOOK_ALLOWED_CIDRS` (or the `allowList` option) could not be parsed. */
export class AllowListError extends Error {
  readonly code = 'invalid_allow_list';
  constructor(message: string) {
    super(message);
    this.name = 'AllowListError';
  }
}

/**
 * Type guard for errors of a guarded delivery.
 * @example
 * if (isDeliveryError(e) && e.code === 'ssrf_blocked') markAttempt('ssrf_blocked', e.message);
 */
export function isDeliveryError(error: unknown): error is DeliveryError {
  return error instanceof DeliveryError;
}

/**
 * Type guard for {@link SsrfBlockedError}.
 * @example
 * if (isSsrfBlockedError(e)) log.warn({ host: e.hostname, blocked: e.blocked }, 'webhook target blocked');
 */
export function isSsrfBlockedError(error: unknown): error is SsrfBlockedError {
  return error instanceof SsrfBlockedError;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT)/;

/**
 * Whether a Node/OpenSSL error code is a TLS handshake or certificate failure (`tls_error` for a
 * webhook's POST and a broker's connection alike).
 * @example
 * isTlsErrorCode('UNABLE_TO_VERIFY_LEAF_SIGNATURE'); // true
 */
export function isTlsErrorCode(code: string): boolean {
  return TLS_CODE.test(code);
}
