import { hash } from 'node:crypto';

/** The 64-bit advisory-lock id of (tenant, key), also stored in the key's row. */
export function lockId(tenant: string, key: string): string {
  // Not salted with the schema: the id is stored in the rows, and must survive a schema rename.
  // Two schemas in one database share the advisory-lock space, so the same (tenant, key) in both
  // at the same instant gets a spurious 409 at worst.
  // One-shot `hash` (no Hash object): the same digest as createHash().update(…) of the same bytes,
  // ~1 µs less per call (lock.test.ts pins the ids rows already hold).
  return hash('sha256', `${tenant}\0${key}`, 'buffer').readBigInt64BE(0).toString();
}
