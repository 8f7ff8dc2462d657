import { loadMigrations } from '@surety/db';

/** This package's migrations (`sql/`), for `migrate(sql, { sets: [...] })`. */
export const migrations = loadMigrations('idempotency', new URL('../sql/', import.meta.url));
