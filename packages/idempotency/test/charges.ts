// The adapter tests' shared set-up: a test database with a migrated engine and a `charges` table, which
// the routes of the semantics table (semantics.ts) write to. Registers its own before/after hooks.
import { after, before } from 'node:test';
import type { Tx } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { Idempotency } from '../src/index.js';

export interface ChargesFixture {
  /** The test database (set in `before`). */
  readonly db: TestDatabase;
  /** An engine on it, migrated (set in `before`). */
  readonly engine: Idempotency;
  /** Writes one charge with `note` in the handler's transaction; its id. */
  insert(tx: Tx, note: string): Promise<number>;
  /** How many charges carry `note` (committed ones). */
  charges(note: string): Promise<number>;
}

/**
 * The fixture, its hooks registered. `setUp` runs at the end of its `before`, once `db` and `engine`
 * exist (a file's top-level `before` hooks are not awaited one after another, so a file's own set-up
 * that needs the database goes here).
 */
export function chargesFixture(setUp?: (fixture: ChargesFixture) => Promise<void>): ChargesFixture {
  let db: TestDatabase | undefined;
  let engine: Idempotency | undefined;
  before(async () => {
    db = await createTestDatabase();
    engine = new Idempotency({ sql: db.sql, schema: db.schema });
    await engine.migrate();
    await db.sql.query(`create table "${db.schema}".charges (id serial primary key, note text not null)`);
    await setUp?.(fixture);
  });
  after(() => db?.close());
  const fixture: ChargesFixture = {
    get db() {
      return db!;
    },
    get engine() {
      return engine!;
    },
    async insert(tx, note) {
      const { rows } = await tx.query<{ id: number }>(
        `insert into "${db!.schema}".charges (note) values ($1) returning id`,
        [note],
      );
      return rows[0]!.id;
    },
    async charges(note) {
      const { rows } = await db!.sql.query<{ n: string }>(
        `select count(*)::text as n from "${db!.schema}".charges where note = $1`,
        [note],
      );
      return Number(rows[0]!.n);
    },
  };
  return fixture;
}
