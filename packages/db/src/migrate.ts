import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Sql } from './types.js';

export interface Migration {
  /** From the file name: `000001_keys.sql` → 1. */
  readonly id: number;
  readonly name: string;
  /** The script, with `:SCHEMA` where the quoted schema name goes. */
  readonly script: string;
}

/** The migrations of one package, tracked separately from other packages' (`set`). */
export interface MigrationSet {
  readonly set: string;
  readonly migrations: readonly Migration[];
}

const FILE = /^(\d{6})_([a-z0-9_]+)\.sql$/;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Reads `NNNNNN_name.sql` files from a folder, in order. Ids must be 1, 2, 3… without gaps. */
export function loadMigrations(set: string, dir: URL): MigrationSet {
  const files = readdirSync(fileURLToPath(dir))
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const migrations = files.map((file, index) => {
    const match = FILE.exec(file);
    if (!match) throw new Error(`migration file name must look like 000001_name.sql: ${file}`);
    const id = Number(match[1]);
    if (id !== index + 1) throw new Error(`migration ${file} is out of sequence (expected id ${index + 1})`);
    return { id, name: match[2]!, script: readFileSync(new URL(file, dir), 'utf8') };
  });
  return { set, migrations };
}

/** Quotes a schema name after checking it is a plain lower-case identifier. */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(`schema name must match ${SCHEMA_NAME}: ${JSON.stringify(schema)}`);
  }
  return `"${schema}"`;
}

export interface MigrateOptions {
  /** @default "surety" */
  schema?: string;
  sets: readonly MigrationSet[];
}

/**
 * Applies pending migrations in order, each in its own transaction.
 *
 * Safe when several processes start at once: every transaction first takes a transaction-scoped
 * advisory lock for the schema, then re-reads what is applied, so a migration is applied exactly
 * once and a loser simply finds it done. The row in `migrations` is inserted in the same transaction
 * as the script, so a failed script leaves no trace (graphile-worker does the same).
 */
export async function migrate(sql: Sql, options: MigrateOptions): Promise<{ applied: string[] }> {
  const schema = quoteSchema(options.schema ?? 'surety');
  const lockName = `surety.migrate:${options.schema ?? 'surety'}`;
  const applied: string[] = [];
  for (const { set, migrations } of options.sets) {
    for (const migration of migrations) {
      await sql.transaction(async (tx) => {
        // `select 1 from`: the function returns void, which some drivers cannot read back (Prisma: P2010).
        await tx.query('select 1 from pg_advisory_xact_lock(hashtext($1)::int8)', [lockName]);
        await tx.exec(
          `create schema if not exists ${schema};
           create table if not exists ${schema}.migrations (
             set text not null,
             id int not null,
             name text not null,
             applied_at timestamptz not null default now(),
             primary key (set, id)
           );`,
        );
        const done = await tx.query<{ id: number }>(
          `select id from ${schema}.migrations where set = $1 and id = $2`,
          [set, migration.id],
        );
        if (done.rows.length > 0) return;
        await tx.query(`insert into ${schema}.migrations (set, id, name) values ($1, $2, $3)`, [
          set,
          migration.id,
          migration.name,
        ]);
        await tx.exec(migration.script.replaceAll(':SCHEMA', schema));
        applied.push(`${set}/${migration.id}_${migration.name}`);
      });
    }
  }
  return { applied };
}
