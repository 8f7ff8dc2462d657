// @surety/db/drizzle (node-postgres) and @surety/db/drizzle-pglite (Drizzle 0.45) in both
// directions, on node-postgres (DATABASE_URL) and on PGlite: the semantics table (semantics.ts), a self-join whose two columns share a name, a nested
// .transaction() as a savepoint, and a transaction the application opened itself (drizzleTx).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { createPgliteSql, isNestedTransactionError } from '@surety/db';
import { drizzleOf as drizzleOfNodePg } from '@surety/db/drizzle';
// drizzle-pglite's drizzleOf is drizzle's on node-postgres: the tests below run it on both backends.
import { drizzleOf, drizzleSql, drizzleTx, type TxDrizzle } from '@surety/db/drizzle-pglite';
import { postgresUrl, type TestDatabase } from '@surety/db/testing';
import { createInbox } from '@surety/webhook-verify/inbox';
import { Webhooks } from '@surety/webhooks';
import { eq } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { alias, integer, pgSchema, text, timestamp } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { describeSemantics, type Payment, paymentIds, paymentsDatabase } from './semantics.js';

const tables = (schema: string) => {
  const s = pgSchema(schema);
  const payments = s.table('payments', { id: text('id').primaryKey(), cents: integer('cents').notNull() });
  const people = s.table('people', {
    id: integer('id').primaryKey(),
    name: text('name').notNull(),
    boss: integer('boss'),
    hired: timestamp('hired', { withTimezone: true }).notNull(),
  });
  return { payments, people };
};

/** On PGlite the application's Drizzle and Surety share one PGlite instance: the test database over it. */
async function sharedPglite(): Promise<TestDatabase & { pglite: PGlite }> {
  const pglite = new PGlite();
  const sql = await createPgliteSql({ db: pglite });
  return {
    sql,
    pglite,
    schema: `t_${randomBytes(6).toString('hex')}`,
    backend: 'pglite',
    connect() {
      throw new Error('PGlite has a single connection');
    },
    close: () => pglite.close(),
  };
}

/** The application's own Drizzle: on its own pg pool, or on the shared PGlite. */
function appDrizzle(db: TestDatabase): { app: TxDrizzle; close(): Promise<void> } {
  if (db.backend === 'pg') {
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 12 });
    return { app: drizzleNodePg({ client: pool }), close: () => pool.end() };
  }
  return {
    app: drizzlePglite({ client: (db as TestDatabase & { pglite: PGlite }).pglite }),
    close: async () => {},
  };
}

describeSemantics({
  name: `drizzle (${postgresUrl ? 'node-postgres' : 'PGlite'}), Surety owns the transaction: drizzleOf(tx)`,
  async setup(db) {
    const { payments } = tables(db.schema);
    const own = db.backend === 'pg' ? appDrizzle(db) : undefined;
    return {
      sql: db.sql,
      insertPayment: async (tx, p: Payment) => {
        await drizzleOf(tx).insert(payments).values(p);
      },
      ...(own && {
        insertPaymentNaively: async (p: Payment) => void (await own.app.insert(payments).values(p)),
      }),
      close: async () => own?.close(),
    };
  },
});

describeSemantics({
  name: `drizzle (${postgresUrl ? 'node-postgres' : 'PGlite'}), Drizzle owns the transaction: drizzleSql(db)`,
  ...(!postgresUrl && { database: sharedPglite }),
  async setup(db) {
    const { payments } = tables(db.schema);
    const own = appDrizzle(db);
    return {
      sql: drizzleSql(own.app),
      insertPayment: async (tx, p: Payment) => {
        await drizzleOf(tx).insert(payments).values(p);
      },
      insertPaymentNaively: async (p: Payment) => void (await own.app.insert(payments).values(p)),
      close: () => own.close(),
    };
  },
});

describe('drizzle: rows by position, savepoints, an application transaction', () => {
  let db: TestDatabase & { pglite?: PGlite };
  let t: ReturnType<typeof tables>;
  let own: ReturnType<typeof appDrizzle>;
  before(async () => {
    db = await paymentsDatabase(postgresUrl ? undefined : sharedPglite);
    t = tables(db.schema);
    await db.sql.query(
      `create table "${db.schema}".people (id int primary key, name text not null, boss int, hired timestamptz not null)`,
    );
    await db.sql.query(
      `insert into "${db.schema}".people values (1, 'ada', null, '2020-01-02T03:04:05Z'), (2, 'bob', 1, '2021-06-07T08:09:10Z')`,
    );
    own = appDrizzle(db);
  });
  after(async () => {
    await own.close();
    await db.close();
  });

  const selfJoin = (d: TxDrizzle) => {
    const boss = alias(t.people, 'boss');
    return d
      .select({
        id: t.people.id,
        name: t.people.name,
        bossId: boss.id,
        bossName: boss.name,
        hired: boss.hired,
      })
      .from(t.people)
      .innerJoin(boss, eq(t.people.boss, boss.id));
  };
  const expected = [
    { id: 2, name: 'bob', bossId: 1, bossName: 'ada', hired: new Date('2020-01-02T03:04:05Z') },
  ];

  test('a self-join with duplicate column names returns the right values, in both directions', async () => {
    assert.deepEqual(await db.sql.transaction((tx) => selfJoin(drizzleOf(tx))), expected);
    assert.deepEqual(await drizzleSql(own.app).transaction((tx) => selfJoin(drizzleOf(tx))), expected);
  });

  test('a nested .transaction() is a savepoint: its throw undoes only it, and nothing commits early', async () => {
    const ids = () => paymentIds(db);
    const run = (outerThrows: boolean) =>
      db.sql.transaction(async (tx) => {
        const d = drizzleOf(tx);
        await d.insert(t.payments).values({ id: 'outer', cents: 1 });
        await d.transaction(async (inner) => {
          await inner.insert(t.payments).values({ id: 'kept', cents: 1 });
          // Drizzle's own nesting inside it: its savepoint, as usual
          await assert.rejects(
            inner.transaction(async (deeper) => {
              await deeper.insert(t.payments).values({ id: 'deeper', cents: 1 });
              throw new Error('deeper');
            }),
            /deeper/,
          );
        });
        await assert.rejects(
          d.transaction(async (inner) => {
            await inner.insert(t.payments).values({ id: 'undone', cents: 1 });
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

  test('an isolation level on a nested transaction is refused, never a silent early COMMIT', async () => {
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await drizzleOf(tx).insert(t.payments).values({ id: 'iso', cents: 1 });
        await drizzleOf(tx).transaction(async () => {}, { isolationLevel: 'serializable' });
      }),
      // node-postgres: refused before it is sent (Drizzle wraps it as the cause of its own error);
      // PGlite: Drizzle sends SET TRANSACTION, which PostgreSQL refuses after the first statement
      (error: unknown) =>
        isNestedTransactionError((error as Error).cause) ||
        /SET TRANSACTION/i.test(`${error} ${(error as Error).cause}`),
    );
    assert.equal((await db.sql.query(`select 1 from "${db.schema}".payments where id = 'iso'`)).rowCount, 0);
  });

  test('publish() and inbox.receive() commit or roll back with a Drizzle transaction (drizzleTx)', async () => {
    const webhooks = new Webhooks({ sql: db.sql, schema: db.schema });
    await webhooks.migrate();
    const inbox = createInbox({ schema: db.schema });
    await inbox.migrate(db.sql);
    await own.app.transaction(async (trx) => {
      await trx.insert(t.payments).values({ id: 'app-tx', cents: 1 });
      await webhooks.publish(drizzleTx(trx), { tenant: 'ok', type: 'payment.created', data: {} });
      assert.deepEqual(await inbox.receive(drizzleTx(trx), { id: 'evt_1' }, async () => 'ran'), {
        kind: 'processed',
        duplicate: false,
        result: 'ran',
      });
    });
    await assert.rejects(
      own.app.transaction(async (trx) => {
        await webhooks.publish(drizzleTx(trx), { tenant: 'undone', type: 'payment.created', data: {} });
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

test('@surety/db/drizzle (node-postgres only) refuses a PGlite transaction and names the subpath that takes it', async () => {
  const sql = await createPgliteSql();
  try {
    await sql.transaction(async (tx) => {
      assert.throws(
        () => drizzleOfNodePg(tx),
        (e: Error) => e instanceof TypeError && /@surety\/db\/drizzle-pglite/.test(e.message),
      );
    });
  } finally {
    await sql.close();
  }
});
