// What the smoke apps on node-postgres share (scripts/smoke/*.ts): Surety's pool, the app's schema and
// its payments table, the idempotency engine migrated, and what the checks read.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPgSql } from '@surety/db';
import { createIdempotency } from '@surety/idempotency';

export async function suretyOnPg(name: string) {
  const schema = `smoke_${name}_${process.pid}`;
  const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
  await sql.query(`create schema ${schema}`);
  await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);
  const engine = createIdempotency({ sql, schema });
  await engine.migrate(); // its table, in the app's schema; safe on every start
  return {
    schema,
    sql,
    engine,
    /** How many payments rows have this id. */
    count: async (id: string) =>
      (
        await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments where id = $1`, [
          id,
        ])
      ).rows[0]!.n,
    /** Drops the schema and closes the pool. */
    drop: async () => {
      await sql.query(`drop schema ${schema} cascade`);
      await sql.close();
    },
  };
}

/** The base URL of a node:http server once it listens (Express's `app.listen(0, '127.0.0.1')`). */
export async function urlOf(server: Server): Promise<string> {
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
