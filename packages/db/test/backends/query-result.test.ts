// What drivers need from Tx.query, on PGlite and (DATABASE_URL) PostgreSQL: array rows that keep
// duplicate column names, the command tag, the columns, the connection under the transaction, and
// a coded refusal of BEGIN / COMMIT sent through it. Calls without options answer as before.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isNestedTransactionError, NestedTransactionError } from '../../src/errors.js';
import { createTestDatabase, type TestDatabase } from '../../src/testing.js';

let db: TestDatabase;
let t: string;
before(async () => {
  db = await createTestDatabase({ max: 2 });
  t = `"${db.schema}".people`;
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table ${t} (id int primary key, name text, boss int)`);
  await db.sql.query(`insert into ${t} values (1, 'ada', null), (2, 'bob', 1)`);
});
after(() => db.close());

const selfJoin = () => `select p.id, p.name, b.id, b.name from ${t} p join ${t} b on b.id = p.boss`;

test("rowMode 'array': a self-join keeps both columns of each name, on the pool and in a transaction", async () => {
  const expected = [[2, 'bob', 1, 'ada']];
  const pooled = await db.sql.query<unknown[]>(selfJoin(), [], { rowMode: 'array' });
  assert.deepEqual(pooled.rows, expected);
  assert.deepEqual(
    pooled.fields.map((f) => f.name),
    ['id', 'name', 'id', 'name'],
  );
  assert.deepEqual(
    pooled.fields.map((f) => f.dataTypeID),
    [23, 25, 23, 25],
  );
  const inTx = await db.sql.transaction((tx) =>
    tx.query<unknown[]>(selfJoin(), undefined, { rowMode: 'array' }),
  );
  assert.deepEqual(inTx.rows, expected);
  // objects as before: the later column of a name wins, as node-postgres and PGlite always did
  const objects = await db.sql.query(selfJoin());
  assert.deepEqual(objects.rows, [{ id: 1, name: 'ada' }]);
});

test('command and rowCount for each kind of statement; a named statement too', async () => {
  await db.sql.transaction(async (tx) => {
    const inserted = await tx.query(`insert into ${t} values (3, 'cy', 1), (4, 'di', 1)`);
    assert.deepEqual([inserted.command, inserted.rowCount, inserted.fields], ['INSERT', 2, []]);
    const updated = await tx.query(
      `with x as (select 1) update ${t} set name = upper(name) where boss = $1`,
      [1],
    );
    assert.deepEqual([updated.command, updated.rowCount], ['UPDATE', 3]);
    const returned = await tx.query(
      { name: `del_${db.schema}`, text: `delete from ${t} where id > $1 returning id` },
      [2],
    );
    assert.deepEqual(
      [returned.command, returned.rowCount, returned.rows],
      ['DELETE', 2, [{ id: 3 }, { id: 4 }]],
    );
    const selected = await tx.query(`select id from ${t} order by id`);
    assert.deepEqual([selected.command, selected.rowCount], ['SELECT', 2]);
  });
  const first = await db.sql.transaction(async (_tx, got) => got, {
    first: `select count(*)::int as n from ${t}`,
  });
  assert.deepEqual(
    [first?.command, first?.rows, first?.fields.map((f) => f.name)],
    ['SELECT', [{ n: 2 }], ['n']],
  );
});

test('tx.driver is the connection under the transaction: what it runs is part of it', async () => {
  await assert.rejects(
    db.sql.transaction(async (tx) => {
      assert.equal(tx.driver.kind, db.backend);
      const client = tx.driver.client as { query(text: string): Promise<unknown> };
      await client.query(`insert into ${t} values (9, 'through the client', null)`);
      const seen = await tx.query(`select name from ${t} where id = 9`);
      assert.deepEqual(seen.rows, [{ name: 'through the client' }]);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.equal((await db.sql.query(`select 1 from ${t} where id = 9`)).rowCount, 0);
});

test('BEGIN, COMMIT, ROLLBACK sent through tx.query are refused with a code; savepoints are fine', async () => {
  for (const statement of [
    'begin',
    ' COMMIT',
    'end',
    'rollback',
    'Start Transaction isolation level serializable',
    'abort',
    'commit and chain',
  ]) {
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await tx.query(`insert into ${t} values (10, 'early', null)`);
        await tx.query(statement);
      }),
      (error: unknown) => {
        assert.ok(error instanceof NestedTransactionError, statement);
        assert.ok(isNestedTransactionError(error));
        assert.equal((error as NestedTransactionError).code, 'SURETY_DB_NESTED_TRANSACTION');
        assert.match((error as Error).message, /docs\/orm\.md/);
        return true;
      },
    );
    // nothing committed early
    assert.equal((await db.sql.query(`select 1 from ${t} where id = 10`)).rowCount, 0, statement);
  }
  const kept = await db.sql.transaction(async (tx) => {
    await tx.query('savepoint a');
    await tx.query(`insert into ${t} values (11, 'undone', null)`);
    await tx.query('rollback to savepoint a');
    await tx.query('ROLLBACK TO a');
    await tx.query('release savepoint a');
    await tx.query(`do $$ begin perform 1; end $$`);
    return (await tx.query(`select 1 from ${t} where id = 11`)).rowCount;
  });
  assert.equal(kept, 0);
});
