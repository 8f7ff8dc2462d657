// createDriverSql over another driver's own transactions: a bare node-postgres pool (DATABASE_URL)
// or a bare PGlite, each opening BEGIN / COMMIT itself. The Sql contract holds over it: COMMIT or
// ROLLBACK with the callback, `first`, `atCommit` inside the transaction, `afterCommit` only after
// COMMIT, array rows and the command, the driver's own transaction object, the nested-BEGIN guard.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { createDriverSql, type DriverConnection } from '../../src/driver-sql.js';
import { NestedTransactionError } from '../../src/errors.js';
import { loadPglite } from '../../src/load-pglite.js';
import type { PgliteInstance, PgliteQueryable } from '../../src/pglite.js';
import { postgresUrl } from '../../src/testing.js';
import type { QueryResult, Sql } from '../../src/types.js';

let sql: Sql;
let closeDriver: () => Promise<void>;
let t: string;
const schema = `t_driver_${process.pid}`;

const fromPg = (client: pg.Pool | pg.PoolClient): DriverConnection => ({
  async query(text, params, options) {
    const r = await client.query({
      text,
      values: [...params],
      ...(options.rowMode === 'array' && { rowMode: 'array' }),
    });
    return { rows: r.rows, rowCount: r.rowCount ?? 0, command: r.command, fields: r.fields };
  },
});
const fromPglite = (db: PgliteQueryable): DriverConnection => ({
  async query(text, params, options) {
    const r = await db.query(
      text,
      [...params],
      options.rowMode === 'array' ? { rowMode: 'array' } : undefined,
    );
    return {
      rows: r.rows,
      rowCount: r.affectedRows ?? 0,
      command: r.command ?? '',
      fields: r.fields ?? [],
    } as QueryResult<unknown>;
  },
});

before(async () => {
  if (postgresUrl) {
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 2 });
    sql = createDriverSql<pg.PoolClient>({
      name: 'bare-pg',
      connection: fromPg(pool),
      async transaction(fn) {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          const value = await fn(fromPg(client), client);
          await client.query('COMMIT');
          return value;
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        } finally {
          client.release();
        }
      },
    });
    closeDriver = async () => {
      await pool.query(`drop schema if exists ${schema} cascade`);
      await pool.end();
    };
  } else {
    const db = new (await loadPglite())() as PgliteInstance;
    sql = createDriverSql<PgliteQueryable>({
      name: 'bare-pglite',
      connection: fromPglite(db),
      transaction: (fn) => db.transaction((trx) => fn(fromPglite(trx), trx)),
    });
    closeDriver = () => db.close();
  }
  t = `${schema}.notes`;
  await sql.query(`create schema ${schema}`);
  await sql.query(`create table ${t} (id int primary key, note text)`);
});
after(() => closeDriver());

const ids = async () =>
  (await sql.query<{ id: number }>(`select id from ${t} order by id`)).rows.map((r) => r.id);

test('commits with the callback, rolls back when it throws; the driver object is tx.driver.client', async () => {
  assert.equal(sql.kind, 'driver');
  await sql.transaction(async (tx) => {
    assert.equal(tx.driver.kind, 'driver');
    assert.match(tx.driver.kind === 'driver' ? tx.driver.name : '', /^bare-/);
    await tx.query(`insert into ${t} values (1, 'kept')`);
  });
  await assert.rejects(
    sql.transaction(async (tx) => {
      await tx.query(`insert into ${t} values (2, 'undone')`);
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.deepEqual(await ids(), [1]);
});

test('first reaches the callback; atCommit runs inside the transaction; afterCommit after COMMIT only', async () => {
  const seen: string[] = [];
  const got = await sql.transaction(
    async (tx, first) => {
      tx.atCommit(`insert into ${t} values (3, 'at commit')`);
      tx.afterCommit(() => seen.push('after'));
      return first?.rows;
    },
    { first: { statement: { name: 'ignored', text: 'select $1::int + 1 as n' }, params: [41] } },
  );
  assert.deepEqual(got, [{ n: 42 }]);
  assert.deepEqual(seen, ['after']);
  // a failing atCommit statement commits nothing and runs no afterCommit
  await assert.rejects(
    sql.transaction(async (tx) => {
      await tx.query(`insert into ${t} values (4, 'with a bad last statement')`);
      tx.atCommit(`insert into ${t} values (3, 'duplicate')`);
      tx.afterCommit(() => seen.push('never'));
    }),
    (e: unknown) => (e as { code?: string }).code === '23505',
  );
  assert.deepEqual(seen, ['after']);
  assert.deepEqual(await ids(), [1, 3]);
});

test('array rows, the command and the columns come through; a nested BEGIN is refused', async () => {
  const r = await sql.transaction((tx) =>
    tx.query<unknown[]>(`select a.id, b.id from ${t} a join ${t} b on b.id > a.id`, [], { rowMode: 'array' }),
  );
  assert.deepEqual([r.command, r.rows, r.fields.map((f) => f.name)], ['SELECT', [[1, 3]], ['id', 'id']]);
  await assert.rejects(
    sql.transaction(async (tx) => {
      await tx.query(`insert into ${t} values (5, 'early')`);
      await tx.query('commit');
    }),
    NestedTransactionError,
  );
  assert.deepEqual(await ids(), [1, 3]);
});

test('listen is refused with the reason; notify goes out on the pool', async () => {
  await assert.rejects(
    sql.listen('x', () => {}),
    /connection of its own/,
  );
  await sql.notify('surety_driver_test', 'hello');
});
