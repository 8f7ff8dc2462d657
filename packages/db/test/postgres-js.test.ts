// @surety/db/postgres-js in both directions, through the shared table (orm-scenarios.ts), and
// postgres.js' own nested transactions (savepoints) inside Surety's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { pgErrorInfo } from '@surety/db';
import { createTestDatabase, needsPostgres, postgresUrl } from '@surety/db/testing';
import { Idempotency, type IdempotencyRequest, type Outcome } from '@surety/idempotency';
import postgres from 'postgres';
import { postgresBegin, postgresOf, postgresSql, postgresTx } from '../src/postgres-js.js';
import { afterTheWrite, created, type OrmContext, ormScenarios, publishCreated } from './orm-scenarios.js';

const connect = () => postgres(postgresUrl!, { max: 12, onnotice: () => {} });

ormScenarios('postgres.js', {
  'postgres.js owns each transaction (postgresSql, postgresOf)': async (ctx: OrmContext) => {
    const pgjs = connect();
    const sql = postgresSql(pgjs);
    const engine = ctx.engine.using(sql);
    const insert = (trx: postgres.TransactionSql, note: string) =>
      trx.unsafe(`insert into ${ctx.table} (note) values ($1)`, [note]);
    return {
      run: ({ key, note, fail, pause, status }) =>
        engine.execute({ tenant: ctx.tenant, key, fingerprint: note }, async (tx) => {
          await insert(postgresOf(tx), note);
          await publishCreated(ctx, tx, note);
          await pause?.();
          if (fail) throw afterTheWrite();
          return created(note, status);
        }),
      receive: ({ id, note, fail }) =>
        sql.transaction((tx) =>
          ctx.inbox.receive(tx, { id }, async () => {
            await insert(postgresOf(tx), note);
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => pgjs.end(),
    };
  },
  'inside a transaction postgres.js opened (sql.begin, postgresTx)': async (ctx: OrmContext) => {
    const pgjs = connect();
    const insert = (trx: postgres.TransactionSql, note: string) =>
      trx.unsafe(`insert into ${ctx.table} (note) values ($1)`, [note]);
    return {
      run: ({ key, note, fail, pause, status }) =>
        postgresBegin(pgjs, (trx, joined) =>
          ctx.engine.using(joined).execute({ tenant: ctx.tenant, key, fingerprint: note }, async () => {
            await insert(trx, note);
            await publishCreated(ctx, joined, note);
            await pause?.();
            if (fail) throw afterTheWrite();
            return created(note, status);
          }),
        ),
      receive: ({ id, note, fail }) =>
        postgresBegin(pgjs, (trx, joined) =>
          ctx.inbox.receive(joined, { id }, async () => {
            await insert(trx, note);
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => pgjs.end(),
    };
  },
});

test('postgres.js: its savepoint() inside Surety’s transaction nests, never commits early', {
  skip: needsPostgres,
}, async () => {
  const pgjs = connect();
  const sql = postgresSql(pgjs);
  const table = `surety_pgjs_${randomUUID().slice(0, 8)}`;
  try {
    await sql.query(`create table ${table} (note text)`);
    await assert.rejects(
      sql.transaction(async (tx) => {
        const trx = postgresOf(tx);
        await trx.unsafe(`insert into ${table} values ('outer')`);
        await trx.savepoint((sp) => sp.unsafe(`insert into ${table} values ('inner')`));
        // From another connection nothing is visible yet: the savepoint did not commit.
        assert.equal((await pgjs.unsafe(`select * from ${table}`)).length, 0);
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal((await pgjs.unsafe(`select * from ${table}`)).length, 0);
  } finally {
    await pgjs.unsafe(`drop table if exists ${table}`);
    await pgjs.end();
  }
});

test('postgres.js: a joined transaction refuses atCommit and listen with a coded error', {
  skip: needsPostgres,
}, async () => {
  const pgjs = connect();
  try {
    await pgjs.begin(async (trx) => {
      const joined = postgresTx(trx);
      assert.throws(() => joined.atCommit('select 1'), { code: 'SURETY_DB_TRANSACTION_OWNED' });
      await assert.rejects(
        joined.listen('x', () => {}),
        { code: 'SURETY_DB_TRANSACTION_OWNED' },
      );
    });
  } finally {
    await pgjs.end();
  }
});

test('postgres.js: transforms that rename columns are refused at creation', () => {
  const pgjs = postgres('postgres://127.0.0.1:1/none', { transform: postgres.camel });
  assert.throws(() => postgresSql(pgjs), /without a `transform` option/);
});

test('postgres.js: pgErrorInfo reads a unique violation’s SQLSTATE, table and constraint (the engine’s claim race)', {
  skip: needsPostgres,
}, async () => {
  const pgjs = connect();
  const sql = postgresSql(pgjs);
  const table = `surety_pgjs_${randomUUID().slice(0, 8)}`;
  try {
    await sql.query(`create table ${table} (id int primary key)`);
    await sql.query(`insert into ${table} values (1)`);
    const error = await sql.query(`insert into ${table} values ($1)`, [1]).catch((e: unknown) => e);
    const info = pgErrorInfo(error);
    assert.equal(info?.code, '23505');
    assert.equal(info?.table, table);
    assert.equal(info?.constraint, `${table}_pkey`);
  } finally {
    await pgjs.unsafe(`drop table if exists ${table}`);
    await pgjs.end();
  }
});

test('postgres.js: a replay answers with the headers the atomic record stored at COMMIT', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const pgjs = connect();
  try {
    await new Idempotency({ sql: db.sql, schema: db.schema }).migrate();
    const engine = new Idempotency({ sql: postgresSql(pgjs), schema: db.schema });
    const response = {
      status: 201,
      headers: { 'content-type': 'application/json', 'x-order': '7' },
      body: '{"ok":true}',
    };
    const twice = async (run: (request: IdempotencyRequest) => Promise<Outcome>) => {
      const request = { tenant: 'pgjs', key: randomUUID(), fingerprint: 'f' };
      assert.equal((await run(request)).kind, 'executed');
      const again = await run(request);
      assert.equal(again.kind, 'replayed');
      assert.deepEqual('response' in again && again.response.headers, response.headers);
    };
    // Surety's transaction (postgresSql), and one postgres.js opened (postgresBegin).
    await twice((request) => engine.execute(request, async () => response));
    await twice((request) =>
      postgresBegin(pgjs, (_trx, joined) => engine.using(joined).execute(request, async () => response)),
    );
    // Stored as a JSON object, as node-postgres and PGlite store it, not as a JSON string.
    const { rows } = await db.sql.query<{ t: string }>(
      `select distinct jsonb_typeof(headers) as t from "${db.schema}".idempotency_keys`,
    );
    assert.deepEqual(rows, [{ t: 'object' }]);
  } finally {
    await pgjs.end();
    await db.close();
  }
});

test('postgres.js: lease mode stores the response headers as a JSON object, and a replay answers with them', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const pgjs = connect();
  try {
    await new Idempotency({ sql: db.sql, schema: db.schema }).migrate();
    const engine = new Idempotency({ sql: postgresSql(pgjs), schema: db.schema });
    const headers = { 'content-type': 'application/json', 'x-order': '8' };
    const request = { tenant: 'pgjs-lease', key: randomUUID(), fingerprint: 'f' };
    const first = await engine.acquire(request);
    assert.equal(first.kind, 'acquired');
    if (first.kind === 'acquired') await first.lease.complete({ status: 201, headers, body: '{"ok":true}' });
    const again = await engine.acquire(request);
    assert.equal(again.kind, 'replayed');
    assert.deepEqual('response' in again && again.response.headers, headers);
    const { rows } = await db.sql.query<{ t: string }>(
      `select jsonb_typeof(headers) as t from "${db.schema}".idempotency_keys where tenant = 'pgjs-lease'`,
    );
    assert.deepEqual(rows, [{ t: 'object' }]);
  } finally {
    await pgjs.end();
    await db.close();
  }
});
