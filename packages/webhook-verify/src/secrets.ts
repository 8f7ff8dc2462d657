import { defaultBackend } from './crypto.js';
import { toBase64 } from './encoding.js';
import { PUBLIC_KEY_PREFIX, SECRET_PREFIX, SIGNING_KEY_PREFIX } from './keys.js';

/**
 * A new random HMAC secret, `whsec_` + base64. It works for both formats: Standard Webhooks
 * decodes the base64, the Surety scheme uses the whole string as given.
 * @default bytes = 32
 * @example
 * const secret = generateSecret(); // "whsec_…", store it per endpoint and show it once
 */
export function generateSecret(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < 24 || bytes > 64) {
    throw new RangeError('a secret has 24 to 64 random bytes (Standard Webhooks asks for at least 24)');
  }
  return SECRET_PREFIX + toBase64(globalThis.crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * A new Ed25519 key pair for Standard Webhooks `v1a`: sign with `signingKey`, give receivers `publicKey`.
 * @example
 * const { signingKey, publicKey } = await generateSigningKey(); // "whsk_…", "whpk_…"
 */
export async function generateSigningKey(): Promise<{ signingKey: string; publicKey: string }> {
  const seed = globalThis.crypto.getRandomValues(new Uint8Array(32));
  const publicKey = await defaultBackend().ed25519PublicKey({
    kind: 'ed25519',
    index: 0,
    seed,
    publicKey: undefined,
  });
  return {
    signingKey: SIGNING_KEY_PREFIX + toBase64(seed),
    publicKey: PUBLIC_KEY_PREFIX + toBase64(publicKey),
  };
}
