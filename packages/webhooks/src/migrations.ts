import { loadMigrations } from '@surety/db';

/** This package's migrations (`sql/`), for `migrate(sql, { sets: [...] })`. */
export const migrations = loadMigrations('webhooks', new URL('../sql/', import.meta.url));
