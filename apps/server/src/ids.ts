import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A prefixed random id (`pay_…`): 22 base62 characters, about 131 bits. */
export function newId(prefix: string): string {
  const bytes = randomBytes(22);
  let out = `${prefix}_`;
  for (const b of bytes) out += ALPHABET[b % 62];
  return out;
}
