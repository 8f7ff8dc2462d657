import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `evt_…`, `we_…`: a prefix and 22 random base62 characters (about 131 bits). */
export function newId(prefix: string): string {
  let out = `${prefix}_`;
  for (const b of randomBytes(22)) out += ALPHABET[b % 62];
  return out;
}
