// TypeORM and Surety, both ways (docs/orm.md). Needs DATABASE_URL.
import { createPgSql } from '@surety/db';
import { typeormOf, typeormSql, typeormTransaction } from '@surety/db/typeorm';
import { createIdempotency, fingerprint } from '@surety/idempotency';
import { Webhooks } from '@surety/webhooks';
import { DataSource, EntitySchema } from 'typeorm';

const schema = `example_typeorm_${process.pid}`;
// An entity; a decorated class (@Entity) works the same.
const Order = new EntitySchema<{ id: number; note: string }>({
  name: 'Order',
  tableName: 'orders',
  schema,
  columns: { id: { type: Number, primary: true, generated: true }, note: { type: String } },
});
const dataSource = await new DataSource({
  type: 'postgres',
  url: process.env.DATABASE_URL!,
  entities: [Order],
}).initialize();
const pgSql = createPgSql({ connectionString: process.env.DATABASE_URL! });
const engine = createIdempotency({ sql: pgSql, schema });
const webhooks = new Webhooks({ sql: pgSql, schema });
await engine.migrate();
await webhooks.migrate();
await dataSource.query(`create table ${schema}.orders (id serial primary key, note text not null)`);
const request = (key: string, note: string) => ({
  tenant: 'acme',
  key,
  fingerprint: fingerprint({ method: 'POST', url: '/orders', body: { note } }),
});
const answer = (order: unknown) => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(order),
});

try {
  // 1. Surety owns the transaction: TypeORM's EntityManager on it (save() opens no transaction of
  //    its own there; manager.transaction() is a SAVEPOINT).
  const first = await engine.execute(request('key-1', 'one'), async (tx) => {
    const order = await typeormOf(dataSource, tx).save(Order, { note: 'one' });
    await webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: order });
    return answer(order);
  });
  console.log('Surety-owned:', first.kind); // Surety-owned: executed

  // 2a. TypeORM owns each transaction the engine opens (dataSource.transaction underneath).
  const second = await engine
    .using(typeormSql(dataSource))
    .execute(request('key-2', 'two'), async (tx) =>
      answer(await typeormOf(dataSource, tx).save(Order, { note: 'two' })),
    );
  // 2b. Inside a transaction your code opened: typeormTransaction is dataSource.transaction() with
  //     Surety joined to it (typeormTx(manager) by hand).
  const third = await typeormTransaction(dataSource, (manager, joined) =>
    engine.using(joined).execute(request('key-3', 'three'), async () => {
      const order = await manager.save(Order, { note: 'three' });
      await webhooks.publish(joined, { tenant: 'acme', type: 'order.created', data: order });
      return answer(order);
    }),
  );
  console.log('TypeORM-owned:', second.kind, third.kind); // TypeORM-owned: executed executed
  console.log('orders:', await dataSource.getRepository(Order).count()); // orders: 3
} finally {
  await dataSource.query(`drop schema ${schema} cascade`);
  await dataSource.destroy();
  await pgSql.close();
}
