// Receiver authentication per endpoint (issue 37): what a tenant gives (basic credentials, OAuth2
// client credentials, an mTLS client certificate and key), checked when it is written, the form it
// is stored in (the `auth` column, migration 000019), and the redacted form an endpoint shows. No
// network here: the token URL is checked like a webhook URL (its literal address against the
// blocked ranges), and its name is resolved and checked again at every token request (token.ts).
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { InvalidAuthError } from './errors.js';

/** Basic authentication (RFC 7617): `Authorization: Basic base64(username:password)` on every attempt. */
export interface BasicAuthInput {
  type: 'basic';
  /** At most 256 characters, no `:` (RFC 7617 §2), no control characters. */
  username: string;
  /** At most 1024 characters, no control characters. Never returned. */
  password: string;
}

/**
 * OAuth2 client credentials (RFC 6749 §4.4): a token is requested from `tokenUrl`, cached until
 * shortly before it expires, and sent as `Authorization: Bearer …`.
 */
export interface OAuth2AuthInput {
  type: 'oauth2';
  /** The token endpoint: https (http only where the engine allows it), checked by the SSRF rules. */
  tokenUrl: string;
  clientId: string;
  /** Never returned. */
  clientSecret: string;
  /** Sent as `scope` when given. */
  scope?: string | null;
  /** Sent as `audience` when given (Auth0 and others require it). */
  audience?: string | null;
  /**
   * How the client authenticates to the token endpoint: HTTP Basic (RFC 6749 §2.3.1, which every
   * server must support) or `client_id` / `client_secret` in the form body.
   * @default "basic"
   */
  clientAuth?: 'basic' | 'body';
}

/** Mutual TLS: the client certificate (and its chain) and key presented to the receiver. */
export interface MtlsAuthInput {
  type: 'mtls';
  /** PEM: the client certificate first, then any intermediates. */
  certificate: string;
  /** PEM, unencrypted (PKCS#8, PKCS#1 or SEC1); must match the certificate. Never returned. */
  privateKey: string;
  /**
   * PEM: the CA certificate(s) the receiver's server certificate must chain to, in place of the
   * system's roots (a receiver with a private CA). Omitted: the usual roots.
   */
  ca?: string | null;
}

/** An endpoint's receiver authentication, as given to create or update (null: none). */
export type EndpointAuthInput = BasicAuthInput | OAuth2AuthInput | MtlsAuthInput;

/** The form stored in the `auth` column (internal: it holds the secrets). */
export type StoredAuth =
  | { type: 'basic'; username: string; password: string }
  | {
      type: 'oauth2';
      tokenUrl: string;
      clientId: string;
      clientSecret: string;
      scope: string | null;
      audience: string | null;
      clientAuth: 'basic' | 'body';
    }
  | {
      type: 'mtls';
      certificate: string;
      privateKey: string;
      ca: string | null;
      /** SHA-256 of the leaf certificate's DER, colon-separated hex. */
      fingerprint: string;
      notAfter: string;
      subject: string;
    };

/** What an endpoint shows of its receiver authentication: never a password, secret or key. */
export type EndpointAuth =
  | { type: 'basic'; username: string }
  | {
      type: 'oauth2';
      tokenUrl: string;
      clientId: string;
      scope: string | null;
      audience: string | null;
      clientAuth: 'basic' | 'body';
    }
  | { type: 'mtls'; certificateFingerprint: string; notAfter: string; subject: string };

export const AUTH_TYPES = ['basic', 'oauth2', 'mtls'] as const;

/** Bounds of each field, in characters. */
export const AUTH_LIMITS = {
  username: 256,
  password: 1024,
  clientId: 256,
  clientSecret: 1024,
  scope: 1024,
  audience: 1024,
  tokenUrl: 2048,
  certificate: 16_384,
  privateKey: 16_384,
  ca: 65_536,
} as const;

const FIELDS: Record<EndpointAuthInput['type'], readonly string[]> = {
  basic: ['type', 'username', 'password'],
  oauth2: ['type', 'tokenUrl', 'clientId', 'clientSecret', 'scope', 'audience', 'clientAuth'],
  mtls: ['type', 'certificate', 'privateKey', 'ca'],
};

const invalid = (field: string, message: string) => {
  const path = field === '' ? '/auth' : `/auth/${field}`;
  return new InvalidAuthError(`${path}: ${message}`, [{ path, message }]);
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// Header values and form fields: visible ASCII and beyond, spaces, no control characters (a CR or
// LF would split the request; RFC 9110 §5.5). PEM text allows line breaks and is checked apart.
const CONTROL = /[\u0000-\u001f\u007f]/;

function text(
  input: Record<string, unknown>,
  field: keyof typeof AUTH_LIMITS,
  optional = false,
): string | null {
  const value = input[field];
  if (value === undefined || value === null) {
    if (optional) return null;
    throw invalid(field, 'is required');
  }
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (value === '' && !optional) throw invalid(field, 'must not be empty');
  if (value.length > AUTH_LIMITS[field])
    throw invalid(field, `must be at most ${AUTH_LIMITS[field]} characters`);
  if (field !== 'certificate' && field !== 'privateKey' && field !== 'ca' && CONTROL.test(value))
    throw invalid(field, 'must not contain control characters');
  return value === '' ? null : value;
}

/** The PEM blocks of one label in `pem`; anything else in it (other labels, bad base64) is refused. */
function pemBlocks(field: string, pem: string, label: 'CERTIFICATE'): string[] {
  const blocks = pem.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  if (blocks.length === 0) throw invalid(field, 'must be PEM (-----BEGIN CERTIFICATE-----)');
  for (const b of blocks)
    if (!b.startsWith(`-----BEGIN ${label}-----`))
      throw invalid(field, `must hold only ${label} blocks (a key or another object was given)`);
  if (blocks.length > 10) throw invalid(field, 'must hold at most 10 certificates');
  return blocks;
}

function certificate(field: string, pem: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw invalid(field, 'is not a certificate that parses');
  }
}

/**
 * Checks an mTLS identity: every PEM parses, the key is unencrypted and matches the leaf certificate,
 * and the certificate has not expired at `nowMs`.
 */
function checkMtls(input: Record<string, unknown>, nowMs: number): StoredAuth {
  const certPem = text(input, 'certificate')!;
  const keyPem = text(input, 'privateKey')!;
  const caPem = text(input, 'ca', true);
  const [leafPem, ...chain] = pemBlocks('certificate', certPem, 'CERTIFICATE');
  const leaf = certificate('certificate', leafPem!);
  for (const c of chain) certificate('certificate', c);
  if (caPem !== null) for (const c of pemBlocks('ca', caPem, 'CERTIFICATE')) certificate('ca', c);
  if (!/-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(keyPem)) {
    throw invalid(
      'privateKey',
      /ENCRYPTED/.test(keyPem)
        ? 'must not be encrypted (no passphrase can be given)'
        : 'must be an unencrypted PEM private key (PKCS#8, PKCS#1 or SEC1)',
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: keyPem, format: 'pem' });
  } catch {
    // Never the parser's message: it may quote the input.
    throw invalid('privateKey', 'is not a private key that parses (or it is encrypted)');
  }
  if (!leaf.checkPrivateKey(key)) throw invalid('privateKey', 'does not match the certificate');
  const notAfter = new Date(leaf.validTo);
  if (!(notAfter.getTime() > nowMs)) throw invalid('certificate', `expired at ${notAfter.toISOString()}`);
  return {
    type: 'mtls',
    certificate: certPem,
    privateKey: keyPem,
    ca: caPem,
    fingerprint: leaf.fingerprint256,
    notAfter: notAfter.toISOString(),
    subject: leaf.subject.replaceAll('\n', ', '),
  };
}

/**
 * Checks `auth` as given to create or update and returns its stored form (null: none). Throws
 * InvalidAuthError (`/auth/...` paths) for anything that cannot be used; `checkUrl` is the engine's
 * webhook URL check (https unless plain http is allowed, no blocked literal address), whose message
 * is kept. Only a webhook endpoint takes `auth`.
 * @example
 * checkAuth({ type: 'basic', username: 'surety', password: 'pw' }, { checkUrl, nowMs: Date.now() });
 */
export function checkAuth(
  input: unknown,
  options: { checkUrl: (url: string) => string; nowMs: number },
): StoredAuth | null {
  if (input === null || input === undefined) return null;
  if (!isObject(input)) throw invalid('', 'must be an object with a `type`, or null');
  const type = input.type;
  if (typeof type !== 'string' || !(AUTH_TYPES as readonly string[]).includes(type))
    throw invalid('type', `must be one of ${AUTH_TYPES.join(', ')}`);
  const allowed = FIELDS[type as EndpointAuthInput['type']];
  for (const key of Object.keys(input))
    if (!allowed.includes(key)) throw invalid(key, `not a field of ${type} authentication`);
  if (type === 'basic') {
    const username = text(input, 'username')!;
    if (username.includes(':')) throw invalid('username', 'must not contain ":" (RFC 7617)');
    return { type, username, password: text(input, 'password')! };
  }
  if (type === 'oauth2') {
    const raw = text(input, 'tokenUrl')!;
    let tokenUrl: string;
    try {
      tokenUrl = options.checkUrl(raw);
    } catch (error) {
      throw invalid('tokenUrl', (error as Error).message);
    }
    const clientAuth = input.clientAuth ?? 'basic';
    if (clientAuth !== 'basic' && clientAuth !== 'body') throw invalid('clientAuth', 'must be basic or body');
    return {
      type,
      tokenUrl,
      clientId: text(input, 'clientId')!,
      clientSecret: text(input, 'clientSecret')!,
      scope: text(input, 'scope', true),
      audience: text(input, 'audience', true),
      clientAuth,
    };
  }
  return checkMtls(input, options.nowMs);
}

/** What an endpoint shows of its stored auth. */
export function redactAuth(auth: StoredAuth | null): EndpointAuth | null {
  if (auth === null) return null;
  switch (auth.type) {
    case 'basic':
      return { type: 'basic', username: auth.username };
    case 'oauth2':
      return {
        type: 'oauth2',
        tokenUrl: auth.tokenUrl,
        clientId: auth.clientId,
        scope: auth.scope,
        audience: auth.audience,
        clientAuth: auth.clientAuth,
      };
    case 'mtls':
      return {
        type: 'mtls',
        certificateFingerprint: auth.fingerprint,
        notAfter: auth.notAfter,
        subject: auth.subject,
      };
  }
}
