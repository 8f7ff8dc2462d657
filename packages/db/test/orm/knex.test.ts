// @surety/db/knex (knex 3) in both directions: the semantics table (semantics.ts), what knex reads
// from a result (command: UPDATE answers a count, SELECT rows, returning rows), a nested
// .transaction() as a savepoint, and a transaction the application opened itself (knexTx).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isNestedTransactionError } from '@surety/db';
import { knexOf, knexSql, knexTx } from '@surety/db/knex';
import { needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { createInbox } from '@surety/webhook-verify/inbox';
import { Webhooks } from '@surety/webhooks';
import knexFactory, { type Knex } from 'knex';
import { describeSemantics, type Payment, paymentIds, paymentsDatabase } from './semantics.js';

/** The application's own knex on its own pool (PostgreSQL; knex has no PGlite dialect). */
const appKnex = () => knexFactory({ client: 'pg', connection: postgresUrl, pool: { min: 0, max: 12 } });

describeSemantics({
  name: 'knex, Surety owns the transaction: knexOf(tx)',
  async setup(db) {
    const app = postgresUrl ? appKnex() : undefined;
    return {
      sql: db.sql,
      insertPayment: async (tx, p: Payment) => {
        await knexOf(tx).withSchema(db.schema).table('payments').insert(p);
      },
      ...(app && {
        insertPaymentNaively: async (p: Payment) => {
          await app.withSchema(db.schema).table('payments').insert(p);
        },
      }),
      close: async () => app?.destroy(),
    };
  },
});

describeSemantics({
  name: 'knex, knex owns the transaction: knexSql(knex)',
  skip: postgresUrl
    ? false
    : 'knex has no PGlite dialect: its own transactions need PostgreSQL (DATABASE_URL)',
  async setup(db) {
    const app = appKnex();
    return {
      sql: knexSql(app),
      insertPayment: async (tx, p: Payment) => {
        await knexOf(tx).withSchema(db.schema).table('payments').insert(p);
      },
      insertPaymentNaively: async (p: Payment) => {
        await app.withSchema(db.schema).table('payments').insert(p);
      },
      close: () => app.destroy(),
    };
  },
});

describe('knex: the bound instance', () => {
  let db: TestDatabase;
  const ids = () => paymentIds(db);
  before(async () => {
    db = await paymentsDatabase();
  });
  after(() => db.close());

  test("knex's answers, which it picks by the result's command: rows, counts, returning, first", async () => {
    await db.sql.transaction(async (tx) => {
      const k = () => knexOf(tx).withSchema(db.schema).table('payments');
      assert.deepEqual(
        await k()
          .insert([
            { id: 'a', cents: 1 },
            { id: 'b', cents: 2 },
          ])
          .returning(['id']),
        [{ id: 'a' }, { id: 'b' }],
      );
      assert.equal(await k().update({ cents: 5 }).where({ id: 'a' }), 1, 'UPDATE answers its count');
      assert.deepEqual(await k().select('cents').where({ id: 'a' }).first(), { cents: 5 });
      assert.deepEqual(await k().pluck('id').orderBy('id'), ['a', 'b']);
      assert.equal(await k().delete(), 2, 'DELETE answers its count');
      const raw = await knexOf(tx).raw('select 1 as one');
      assert.equal(raw.command, 'SELECT');
    });
  });

  test('a nested .transaction() is a savepoint: its throw undoes only it, and nothing commits early', async () => {
    const run = (outerThrows: boolean) =>
      db.sql.transaction(async (tx) => {
        const k = knexOf(tx);
        await k.withSchema(db.schema).table('payments').insert({ id: 'outer', cents: 1 });
        await k.transaction(async (trx) => {
          await trx.withSchema(db.schema).table('payments').insert({ id: 'kept', cents: 1 });
          await assert.rejects(
            trx.transaction(async (deeper) => {
              await deeper.withSchema(db.schema).table('payments').insert({ id: 'deeper', cents: 1 });
              throw new Error('deeper');
            }),
            /deeper/,
          );
        });
        await assert.rejects(
          k.transaction(async (trx) => {
            await trx.withSchema(db.schema).table('payments').insert({ id: 'undone', cents: 1 });
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

  test('an isolation level on a nested transaction, or a raw COMMIT, is refused with a code', async () => {
    await assert.rejects(
      db.sql.transaction((tx) => knexOf(tx).transaction(async () => {}, { isolationLevel: 'serializable' })),
      (error: unknown) => isNestedTransactionError(error),
    );
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await knexOf(tx).withSchema(db.schema).table('payments').insert({ id: 'early', cents: 1 });
        await knexOf(tx).raw('commit');
      }),
      (error: unknown) => isNestedTransactionError(error),
    );
    assert.deepEqual(await ids(), []);
  });
});

describe('knex: a transaction the application opened (knexTx)', { skip: needsPostgres }, () => {
  let db: TestDatabase;
  let app: Knex;
  before(async () => {
    db = await paymentsDatabase();
    app = appKnex();
  });
  after(async () => {
    await app.destroy();
    await db.close();
  });

  test('publish() and inbox.receive() commit or roll back with the knex transaction', async () => {
    const webhooks = new Webhooks({ sql: db.sql, schema: db.schema });
    await webhooks.migrate();
    const inbox = createInbox({ schema: db.schema });
    await inbox.migrate(db.sql);
    await app.transaction(async (trx) => {
      await trx.withSchema(db.schema).table('payments').insert({ id: 'p1', cents: 1 });
      await webhooks.publish(knexTx(trx), { tenant: 'ok', type: 'payment.created', data: {} });
      assert.deepEqual(await inbox.receive(knexTx(trx), { id: 'evt_1' }, async () => 'ran'), {
        kind: 'processed',
        duplicate: false,
        result: 'ran',
      });
    });
    await assert.rejects(
      app.transaction(async (trx) => {
        await webhooks.publish(knexTx(trx), { tenant: 'undone', type: 'payment.created', data: {} });
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    const events = async (tenant: string) =>
      (await db.sql.query(`select 1 from "${db.schema}".webhook_events where tenant = $1`, [tenant]))
        .rowCount;
    assert.equal(await events('ok'), 1);
    assert.equal(await events('undone'), 0);
  });
});
