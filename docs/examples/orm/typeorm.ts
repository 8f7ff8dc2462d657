// TypeORM, all three ways: Surety owns the transaction (typeormOf on it), TypeORM owns each one the
// engine opens (typeormSql), or the engine joins a dataSource.transaction() of your own
// (typeormTransaction). Needs PostgreSQL (DATABASE_URL): TypeORM has no PGlite driver.
import { createPgSql } from '@surety/db';
import { typeormOf, typeormSql, typeormTransaction } from '@surety/db/typeorm';
import { createIdempotency, fingerprint } from '@surety/idempotency';
import { createWebhooks } from '@surety/webhooks';
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
const sql = createPgSql({ connectionString: process.env.DATABASE_URL! });
const engine = createIdempotency({ sql, schema });
const webhooks = createWebhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();
await sql.query(`create table ${schema}.orders (id serial primary key, note text not null)`);
const request = (key: string, note: string) => ({
  tenant: 'acme',
  key,
  fingerprint: fingerprint({ method: 'POST', url: '/orders', body: { note } }),
});
const created = (order: unknown) => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(order),
});

// 1. Surety owns the transaction: TypeORM's EntityManager on it (save() opens no transaction of its
//    own there; manager.transaction() is a SAVEPOINT). The DataSource's pool is not used.
const first = await engine.execute(request('key-1', 'one'), async (tx) => {
  const order = await typeormOf(dataSource, tx).save(Order, { note: 'one' });
  await webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: order });
  return created(order);
});

// 2a. TypeORM owns each transaction the engine opens (dataSource.transaction underneath);
//     typeormOf(dataSource, tx) is then TypeORM's transactional manager.
const second = await engine
  .using(typeormSql(dataSource))
  .execute(request('key-2', 'two'), async (tx) =>
    created(await typeormOf(dataSource, tx).save(Order, { note: 'two' })),
  );

// 2b. Inside a dataSource.transaction() of your own: typeormTransaction joins Surety to it
//     (typeormTx(manager) by hand); the key commits when, and only when, TypeORM commits.
const third = await typeormTransaction(dataSource, (manager, joined) =>
  engine.using(joined).execute(request('key-3', 'three'), async () => {
    const order = await manager.save(Order, { note: 'three' });
    await webhooks.publish(joined, { tenant: 'acme', type: 'order.created', data: order });
    return created(order);
  }),
);
const orders = await dataSource.getRepository(Order).count();
console.log(first.kind, second.kind, third.kind, orders);
// prints: executed executed executed 3

await sql.query(`drop schema ${schema} cascade`);
await dataSource.destroy();
await sql.close();
