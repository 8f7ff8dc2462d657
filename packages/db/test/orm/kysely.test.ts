// @surety/db/kysely (Kysely 0.28) in both directions: the semantics table (semantics.ts), a nested
// .transaction() as a savepoint, and a transaction the application opened itself (kyselyTx).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isNestedTransactionError, type Sql } from '@surety/db';
import { kyselyOf, kyselySql, kyselyTx } from '@surety/db/kysely';
import { needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { createInbox } from '@surety/webhook-verify/inbox';
import { Webhooks } from '@surety/webhooks';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { describeSemantics, type Payment, paymentIds, paymentsDatabase } from './semantics.js';

interface Database {
  payments: { id: string; cents: number };
}

/** The application's own Kysely on its own pool (PostgreSQL). */
const appKysely = () =>
  new Kysely<Database>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgresUrl, max: 12 }) }),
  });

describeSemantics({
  name: 'kysely, Surety owns the transaction: kyselyOf(tx)',
  async setup(db) {
    const app = postgresUrl ? appKysely() : undefined;
    return {
      sql: db.sql,
      insertPayment: async (tx, p: Payment) => {
        await kyselyOf<Database>(tx).withSchema(db.schema).insertInto('payments').values(p).execute();
      },
      ...(app && {
        insertPaymentNaively: async (p: Payment) => {
          await app.withSchema(db.schema).insertInto('payments').values(p).execute();
        },
      }),
      close: async () => app?.destroy(),
    };
  },
});

describeSemantics({
  name: 'kysely, Kysely owns the transaction: kyselySql(db)',
  skip: postgresUrl
    ? false
    : 'Kysely has no PGlite dialect: its own transactions need PostgreSQL (DATABASE_URL)',
  async setup(db) {
    const app = appKysely();
    return {
      sql: kyselySql(app),
      insertPayment: async (tx, p: Payment) => {
        await kyselyOf<Database>(tx).withSchema(db.schema).insertInto('payments').values(p).execute();
      },
      insertPaymentNaively: async (p: Payment) => {
        await app.withSchema(db.schema).insertInto('payments').values(p).execute();
      },
      close: () => app.destroy(),
    };
  },
});

describe('kysely: the bound instance', () => {
  let db: TestDatabase;
  const ids = () => paymentIds(db);
  before(async () => {
    db = await paymentsDatabase();
  });
  after(() => db.close());

  test('typed results: rows, numAffectedRows of a write, returning', async () => {
    await db.sql.transaction(async (tx) => {
      const k = kyselyOf<Database>(tx).withSchema(db.schema);
      const inserted = await k
        .insertInto('payments')
        .values([
          { id: 'a', cents: 1 },
          { id: 'b', cents: 2 },
        ])
        .returning(['id', 'cents'])
        .execute();
      assert.deepEqual(inserted, [
        { id: 'a', cents: 1 },
        { id: 'b', cents: 2 },
      ]);
      const updated = await k
        .updateTable('payments')
        .set({ cents: 3 })
        .where('id', '=', 'a')
        .executeTakeFirst();
      assert.equal(updated.numUpdatedRows, 1n);
      const row = await k
        .selectFrom('payments')
        .select(['cents'])
        .where('id', '=', 'a')
        .executeTakeFirstOrThrow();
      assert.equal(row.cents, 3);
      await k.deleteFrom('payments').execute();
    });
  });

  test('a nested .transaction() is a savepoint: its throw undoes only it, and nothing commits early', async () => {
    const run = (outerThrows: boolean) =>
      db.sql.transaction(async (tx) => {
        const k = kyselyOf<Database>(tx).withSchema(db.schema);
        await k.insertInto('payments').values({ id: 'outer', cents: 1 }).execute();
        await k
          .transaction()
          .execute((t) => t.insertInto('payments').values({ id: 'kept', cents: 1 }).execute());
        await assert.rejects(
          k.transaction().execute(async (t) => {
            await t.insertInto('payments').values({ id: 'undone', cents: 1 }).execute();
            throw new Error('inner');
          }),
          /inner/,
        );
        if (outerThrows) throw new Error('outer');
      });
    await assert.rejects(run(true), /outer/);
    assert.deepEqual(await ids(), [], 'the nested COMMIT did not commit Surety’s transaction');
    await run(false);
    assert.deepEqual(await ids(), ['kept', 'outer']);
    await db.sql.query(`delete from "${db.schema}".payments`);
  });

  test('an isolation level on a nested transaction is refused with a code', async () => {
    await assert.rejects(
      db.sql.transaction((tx) =>
        kyselyOf<Database>(tx)
          .transaction()
          .setIsolationLevel('serializable')
          .execute(async () => {}),
      ),
      (error: unknown) => isNestedTransactionError(error),
    );
  });
});

describe('kysely: a transaction the application opened (kyselyTx)', { skip: needsPostgres }, () => {
  let db: TestDatabase;
  let app: Kysely<Database>;
  let webhooks: Webhooks;
  let sql: Sql;
  before(async () => {
    db = await paymentsDatabase();
    webhooks = new Webhooks({ sql: db.sql, schema: db.schema });
    await webhooks.migrate();
    await createInbox({ schema: db.schema }).migrate(db.sql);
    app = appKysely();
    sql = kyselySql(app);
  });
  after(async () => {
    await app.destroy();
    await db.close();
  });

  test('publish() and inbox.receive() commit or roll back with the Kysely transaction', async () => {
    const inbox = createInbox({ schema: db.schema });
    const events = async (tenant: string) =>
      (await db.sql.query(`select 1 from "${db.schema}".webhook_events where tenant = $1`, [tenant]))
        .rowCount;
    await app.transaction().execute(async (trx) => {
      await trx.withSchema(db.schema).insertInto('payments').values({ id: 'p1', cents: 1 }).execute();
      await webhooks.publish(kyselyTx(trx), { tenant: 'ok', type: 'payment.created', data: {} });
      const got = await inbox.receive(kyselyTx(trx), { id: 'evt_1' }, async () => 'ran');
      assert.deepEqual(got, { kind: 'processed', duplicate: false, result: 'ran' });
    });
    await assert.rejects(
      app.transaction().execute(async (trx) => {
        await webhooks.publish(kyselyTx(trx), { tenant: 'undone', type: 'payment.created', data: {} });
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await events('ok'), 1);
    assert.equal(await events('undone'), 0);
    assert.deepEqual(await sql.transaction((tx) => inbox.receive(tx, { id: 'evt_1' }, async () => 'again')), {
      kind: 'duplicate',
      duplicate: true,
    });
    // atCommit needs Surety's COMMIT: refused with the way out
    await app.transaction().execute(async (trx) => {
      assert.throws(() => kyselyTx(trx).atCommit('select 1'), /createDriverSql/);
    });
  });
});
