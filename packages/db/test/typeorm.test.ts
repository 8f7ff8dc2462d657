// @surety/db/typeorm in both directions, through the shared table (orm-scenarios.ts), and TypeORM's
// own transactions (save(), manager.transaction(), a COMMIT through its QueryRunner) inside Surety's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { isNestedTransactionError } from '@surety/db';
import { createTestDatabase, needsPostgres, postgresUrl } from '@surety/db/testing';
import { DataSource, EntitySchema } from 'typeorm';
import { typeormOf, typeormSql, typeormTransaction, typeormTx } from '../src/typeorm.js';
import { afterTheWrite, created, type OrmContext, ormScenarios, publishCreated } from './orm-scenarios.js';

interface Order {
  id: number;
  note: string;
}
// An entity without decorators (the test runner emits no decorator metadata).
const orderEntity = (schema: string) =>
  new EntitySchema<Order>({
    name: 'Order',
    tableName: 'orders',
    schema,
    columns: { id: { type: Number, primary: true, generated: true }, note: { type: String } },
  });

async function dataSourceFor(schema: string): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'postgres',
    url: postgresUrl!,
    entities: [orderEntity(schema)],
    poolSize: 12,
    logging: false,
  });
  return dataSource.initialize();
}

ormScenarios('TypeORM', {
  'Surety owns the transaction (typeormOf)': async (ctx: OrmContext) => {
    const dataSource = await dataSourceFor(ctx.db.schema);
    return {
      run: ({ key, note, fail, pause, status }) =>
        ctx.engine.execute({ tenant: ctx.tenant, key, fingerprint: note }, async (tx) => {
          const orders = typeormOf(dataSource, tx).getRepository<Order>('Order');
          await orders.save(orders.create({ note })); // save() opens no transaction of its own here
          await publishCreated(ctx, tx, note);
          await pause?.();
          if (fail) throw afterTheWrite();
          return created(note, status);
        }),
      receive: ({ id, note, fail }) =>
        ctx.db.sql.transaction((tx) =>
          ctx.inbox.receive(tx, { id }, async () => {
            await typeormOf(dataSource, tx).insert('Order', { note });
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => dataSource.destroy(),
    };
  },
  'TypeORM owns the transaction (typeormSql, typeormOf)': async (ctx: OrmContext) => {
    const dataSource = await dataSourceFor(ctx.db.schema);
    const sql = typeormSql(dataSource);
    const engine = ctx.engine.using(sql);
    return {
      run: ({ key, note, fail, pause, status }) =>
        engine.execute({ tenant: ctx.tenant, key, fingerprint: note }, async (tx) => {
          await typeormOf(dataSource, tx).save('Order', { note });
          await publishCreated(ctx, tx, note);
          await pause?.();
          if (fail) throw afterTheWrite();
          return created(note, status);
        }),
      receive: ({ id, note, fail }) =>
        sql.transaction((tx) =>
          ctx.inbox.receive(tx, { id }, async () => {
            await typeormOf(dataSource, tx).insert('Order', { note });
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => dataSource.destroy(),
    };
  },
  'inside a transaction TypeORM opened (dataSource.transaction, typeormTx)': async (ctx: OrmContext) => {
    const dataSource = await dataSourceFor(ctx.db.schema);
    return {
      run: ({ key, note, fail, pause, status }) =>
        typeormTransaction(dataSource, (manager, joined) =>
          ctx.engine.using(joined).execute({ tenant: ctx.tenant, key, fingerprint: note }, async () => {
            await manager.save('Order', { note });
            await publishCreated(ctx, joined, note);
            await pause?.();
            if (fail) throw afterTheWrite();
            return created(note, status);
          }),
        ),
      receive: ({ id, note, fail }) =>
        typeormTransaction(dataSource, (manager, joined) =>
          ctx.inbox.receive(joined, { id }, async () => {
            await manager.insert('Order', { note });
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => dataSource.destroy(),
    };
  },
});

test('TypeORM inside Surety’s transaction: save() and manager.transaction() nest, a COMMIT is refused', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table "${db.schema}".orders (id serial primary key, note text not null)`);
  const dataSource = await dataSourceFor(db.schema);
  const notes = async () =>
    (await db.sql.query<{ note: string }>(`select note from "${db.schema}".orders order by id`)).rows.map(
      (r) => r.note,
    );
  try {
    // save() inside Surety's transaction: nothing is visible (or committed) before Surety's COMMIT.
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        const manager = typeormOf(dataSource, tx);
        await manager.save('Order', { note: 'saved' });
        assert.deepEqual(await notes(), [], 'save() did not commit early');
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await notes(), []);

    // A nested manager.transaction() is a SAVEPOINT: its rollback leaves the outer write.
    await db.sql.transaction(async (tx) => {
      const manager = typeormOf(dataSource, tx);
      await manager.insert('Order', { note: 'outer' });
      await assert.rejects(
        manager.transaction(async (inner) => {
          await inner.insert('Order', { note: 'inner' });
          throw new Error('inner fails');
        }),
        /inner fails/,
      );
      await manager.transaction((inner) => inner.insert('Order', { note: 'inner kept' }));
    });
    assert.deepEqual(await notes(), ['outer', 'inner kept']);

    // A COMMIT through TypeORM's QueryRunner is refused, and sends nothing.
    const key = randomUUID();
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        const manager = typeormOf(dataSource, tx);
        await manager.insert('Order', { note: key });
        await manager.queryRunner!.commitTransaction();
      }),
      (error: unknown) => isNestedTransactionError(error) && error.code === 'SURETY_DB_NESTED_TRANSACTION',
    );
    assert.deepEqual(await notes(), ['outer', 'inner kept'], 'nothing of the refused transaction committed');

    // The other way: typeormTx refuses a manager outside a transaction.
    assert.throws(() => typeormTx(dataSource.manager), { code: 'SURETY_DB_TRANSACTION_OWNED' });
  } finally {
    await dataSource.destroy();
    await db.close();
  }
});
