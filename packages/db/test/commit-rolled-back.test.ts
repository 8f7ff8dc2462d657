// A transaction whose function caught a failed statement and returned: PostgreSQL answers its
// COMMIT with ROLLBACK (no error). The transaction must fail, its after-commit callbacks must not
// run, and nothing is kept; on every driver (the test backend, and postgres.js with DATABASE_URL).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Sql } from '@surety/db';
import { createTestDatabase, postgresUrl, type TestDatabase } from '@surety/db/testing';
import postgres from 'postgres';
import { postgresSql } from '../src/postgres-js.js';

let db: TestDatabase;
let pgjs: postgres.Sql | undefined;
let table: string;
before(async () => {
  db = await createTestDatabase();
  table = `"${db.schema}".commit_rolled_back`;
  await db.sql.query(`create schema if not exists "${db.schema}"`);
  await db.sql.query(`create table ${table} (x int primary key)`);
  if (postgresUrl) pgjs = postgres(postgresUrl, { max: 1, onnotice: () => {} });
});
after(async () => {
  await pgjs?.end();
  await db?.close();
});

async function swallowed(sql: Sql, x: number) {
  let ran = false;
  const outcome = await sql
    .transaction(async (tx) => {
      await tx.query(`insert into ${table} values ($1)`, [x]);
      await tx.query(`insert into ${table} values ($1)`, [x]).catch(() => {});
      tx.afterCommit(() => {
        ran = true;
      });
      return 'returned';
    })
    .then(
      (v) => ({ resolved: v }),
      // 25P02 on node-postgres and PGlite; postgres.js rethrows the failed statement's error.
      (e: { code?: string }) => ({ rejected: e.code === '25P02' || e.code === '23505' }),
    );
  assert.deepEqual(outcome, { rejected: true }, 'the transaction fails');
  assert.equal(ran, false, 'no after-commit callback');
  const { rows } = await db.sql.query<{ n: number }>(`select count(*)::int as n from ${table} where x = $1`, [
    x,
  ]);
  assert.equal(rows[0]!.n, 0);
}

test('a COMMIT answered with ROLLBACK fails the transaction (the test backend)', () => swallowed(db.sql, 1));

test(
  'a COMMIT answered with ROLLBACK fails the transaction (postgres.js)',
  {
    skip: !postgresUrl && 'needs DATABASE_URL',
  },
  () => swallowed(postgresSql(pgjs!), 2),
);
