import { loadMigrations } from '@surety/db';

/** The service's own tables (`sql/`). */
export const migrations = loadMigrations('server', new URL('../sql/', import.meta.url));
