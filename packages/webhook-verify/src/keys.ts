import { bodyBytes, fromBase64 } from './encoding.js';
import { fail, WebhookErrorCode } from './errors.js';

/**
 * A signing secret or key.
 *
 * - Surety scheme: a string is used as its UTF-8 bytes, exactly as given (prefix included, the
 *   convention Stripe uses for its `whsec_` secrets); a Uint8Array is used as raw key bytes.
 * - Standard Webhooks: `whsec_<base64>` (or the bare base64) is an HMAC key; `whsk_<base64 seed>` an
 *   Ed25519 signing key (it also verifies); `whpk_<base64>` an Ed25519 public key (verify only); a
 *   Uint8Array is used as raw HMAC key bytes.
 */
export type Secret = string | Uint8Array;

/** The webhook formats this package reads and writes. */
export type WebhookFormat = 'surety' | 'standard';

export const SECRET_PREFIX = 'whsec_';
export const SIGNING_KEY_PREFIX = 'whsk_';
export const PUBLIC_KEY_PREFIX = 'whpk_';

/** An HMAC-SHA256 key decoded from a secret; `index` is its place in the list the caller gave. */
export interface HmacKey {
  kind: 'hmac';
  index: number;
  bytes: Uint8Array;
}

/** An Ed25519 key: the seed when it can sign, the public key when it was given (else derived). */
export interface Ed25519Key {
  kind: 'ed25519';
  index: number;
  seed: Uint8Array | undefined;
  publicKey: Uint8Array | undefined;
}

/** A secret decoded for one format. */
export type PreparedKey = HmacKey | Ed25519Key;

function decode(text: string, what: string, index: number): Uint8Array {
  const bytes = fromBase64(text);
  if (!bytes || bytes.length === 0)
    fail(WebhookErrorCode.BadSecret, `secret #${index} is not a valid base64 ${what}`);
  return bytes;
}

/** Decodes one secret for `format`; throws `SURETY_WEBHOOK_BAD_SECRET` when it cannot be used there. */
export function prepareKey(secret: Secret, format: WebhookFormat, index: number): PreparedKey {
  if (typeof secret !== 'string' && !(secret instanceof Uint8Array)) {
    fail(WebhookErrorCode.BadSecret, `secret #${index} must be a string or a Uint8Array`);
  }
  if (secret.length === 0) fail(WebhookErrorCode.BadSecret, `secret #${index} is empty`);
  if (
    typeof secret === 'string' &&
    (secret.startsWith(SIGNING_KEY_PREFIX) || secret.startsWith(PUBLIC_KEY_PREFIX))
  ) {
    if (format === 'surety') {
      fail(WebhookErrorCode.BadSecret, `secret #${index} is an Ed25519 key; the Surety scheme is HMAC only`);
    }
    if (secret.startsWith(PUBLIC_KEY_PREFIX)) {
      const publicKey = decode(secret.slice(PUBLIC_KEY_PREFIX.length), 'Ed25519 public key', index);
      if (publicKey.length !== 32)
        fail(WebhookErrorCode.BadSecret, `secret #${index}: an Ed25519 public key is 32 bytes`);
      return { kind: 'ed25519', index, seed: undefined, publicKey };
    }
    const raw = decode(secret.slice(SIGNING_KEY_PREFIX.length), 'Ed25519 signing key', index);
    // 32 bytes is the seed (RFC 8032's private key); 64 is libsodium's seed ‖ public key.
    if (raw.length !== 32 && raw.length !== 64) {
      fail(WebhookErrorCode.BadSecret, `secret #${index}: an Ed25519 signing key is a 32-byte seed`);
    }
    return {
      kind: 'ed25519',
      index,
      seed: raw.subarray(0, 32),
      publicKey: raw.length === 64 ? raw.subarray(32) : undefined,
    };
  }
  if (format === 'surety' || typeof secret !== 'string')
    return { kind: 'hmac', index, bytes: bodyBytes(secret) };
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return { kind: 'hmac', index, bytes: decode(text, 'secret', index) };
}

/** Normalises one secret or a list to a non-empty list of prepared keys. */
export function prepareKeys(secrets: Secret | readonly Secret[], format: WebhookFormat): PreparedKey[] {
  const list: readonly Secret[] =
    typeof secrets === 'string' || secrets instanceof Uint8Array ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) fail(WebhookErrorCode.BadSecret, 'no secret given');
  return list.map((secret, index) =>
    typeof secret === 'string' ? cached(secret, format, index) : prepareKey(secret, format, index),
  );
}

// Text secrets prepared lately, so a sender signing thousands of deliveries a second for one endpoint
// decodes its secret once and the crypto backend's key object (held per prepared key) is reused.
// Bounded; byte secrets are not cached (their contents may change under the same object).
const CACHE_SIZE = 1024;
const prepared = new Map<string, PreparedKey>();
function cached(secret: string, format: WebhookFormat, index: number): PreparedKey {
  const id = `${format}:${index}:${secret}`;
  let key = prepared.get(id);
  if (!key) {
    key = prepareKey(secret, format, index);
    if (prepared.size >= CACHE_SIZE) prepared.clear();
    prepared.set(id, key);
  }
  return key;
}
