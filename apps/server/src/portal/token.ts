/**
 * Portal tokens: `ps_<session id>.<secret>`, opaque. The session id (`ps_` + 22 base62, from
 * `newId`) names the row; the secret is 32 random bytes, base64url (43 characters), of which only
 * the SHA-256 is stored. Opaque rather than signed: every request reads the session row anyway
 * (revocation must hold at once), so a signature would add a key to manage and rotate and prove
 * nothing the row does not (docs/decisions.md, "Portal tokens").
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { newId } from '@surety/webhooks/ids';

/** A session id: what `newId('ps')` makes. */
export const SESSION_ID = '^ps_[0-9A-Za-z]{22}$';
const TOKEN = /^(ps_[0-9A-Za-z]{22})\.([A-Za-z0-9_-]{43})$/;

/** Whether a bearer credential is meant as a portal token (API keys never start with `ps_`). */
export const looksLikePortalToken = (bearer: string): boolean => bearer.startsWith('ps_');

/** SHA-256 of a secret, hex: what is stored. */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A new session's id, token and the hash to store. */
export function issueToken(now: number = Date.now()): { id: string; token: string; tokenHash: string } {
  const id = newId('ps', now);
  const secret = randomBytes(32).toString('base64url');
  return { id, token: `${id}.${secret}`, tokenHash: hashSecret(secret) };
}

/** The session id and secret of a well-formed token, or undefined. */
export function parseToken(token: string): { id: string; secret: string } | undefined {
  const m = TOKEN.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

/**
 * Whether `secret` hashes to `storedHash` (hex), compared in constant time: the time taken says
 * nothing about how much of the hash matched.
 */
export function secretMatches(secret: string, storedHash: string): boolean {
  const expected = Buffer.from(storedHash, 'hex');
  const actual = createHash('sha256').update(secret).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
