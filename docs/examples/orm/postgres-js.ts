// postgres.js owns the transaction, both ways: each transaction the engine opens is a postgres.js
// sql.begin() (postgresSql), or the engine joins a sql.begin() of your own (postgresBegin).
// Needs PostgreSQL (DATABASE_URL): postgres.js speaks the wire protocol itself.
import { postgresBegin, postgresOf, postgresSql } from '@surety/db/postgres-js';
import { createIdempotency, fingerprint } from '@surety/idempotency';
import { createWebhooks } from '@surety/webhooks';
import postgres from 'postgres';

const pgjs = postgres(process.env.DATABASE_URL!, { onnotice: () => {} });
const schema = `example_pgjs_${process.pid}`;
const sql = postgresSql(pgjs); // Surety's Sql: give it to the engine, Webhooks, the inbox
const engine = createIdempotency({ sql, schema });
const webhooks = createWebhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();
await pgjs.unsafe(`create table ${schema}.orders (id serial primary key, note text not null)`);
const request = (key: string, body: { note: string }) => ({
  tenant: 'acme',
  key,
  fingerprint: fingerprint({ method: 'POST', url: '/orders', body }),
});
const created = (order: unknown) => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(order),
});

// 1. Each transaction the engine opens is a sql.begin(); write through postgresOf(tx), postgres.js'
//    own TransactionSql (trx`…`, trx.savepoint(), …).
const first = await engine.execute(request('key-1', { note: 'one' }), async (tx) => {
  const trx = postgresOf(tx);
  const [order] = await trx`insert into ${trx(schema)}.orders ${trx({ note: 'one' })} returning id, note`;
  await webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: order });
  return created(order);
});

// 2. Inside a sql.begin() of your own: postgresBegin is sql.begin() with Surety joined to it
//    (postgresTx(trx) by hand); the engine's claim is a SAVEPOINT, the key commits with your COMMIT.
const second = await postgresBegin(pgjs, (trx, joined) =>
  engine.using(joined).execute(request('key-2', { note: 'two' }), async () => {
    const [order] = await trx`insert into ${trx(schema)}.orders ${trx({ note: 'two' })} returning id, note`;
    await webhooks.publish(joined, { tenant: 'acme', type: 'order.created', data: order });
    return created(order);
  }),
);

const retry = await engine.execute(request('key-1', { note: 'one' }), async () => {
  throw new Error('not run: the key is stored');
});
const [{ n }] = await pgjs`select count(*)::int as n from ${pgjs(schema)}.orders`;
console.log(first.kind, second.kind, retry.kind, n);
// prints: executed executed replayed 2

await pgjs.unsafe(`drop schema ${schema} cascade`);
await pgjs.end();
