import { createHash } from 'node:crypto';

/** The 64-bit advisory-lock id of (tenant, key), also stored in the key's row. */
export function lockId(tenant: string, key: string): string {
  // Not salted with the schema: the id is stored in the rows, and must survive a schema rename.
  // Two schemas in one database share the advisory-lock space, so the same (tenant, key) in both
  // at the same instant gets a spurious 409 at worst.
  const digest = createHash('sha256').update(tenant).update('\0').update(key).digest();
  return digest.readBigInt64BE(0).toString();
}
