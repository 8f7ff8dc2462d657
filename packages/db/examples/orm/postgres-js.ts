// postgres.js and Surety, both ways (docs/orm.md). Needs DATABASE_URL.
import { postgresBegin, postgresOf, postgresSql } from '@surety/db/postgres-js';
import { createIdempotency, fingerprint } from '@surety/idempotency';
import { Webhooks } from '@surety/webhooks';
import postgres from 'postgres';

const pgjs = postgres(process.env.DATABASE_URL!, { onnotice: () => {} });
const schema = `example_pgjs_${process.pid}`;
const sql = postgresSql(pgjs); // Surety's Sql: each Surety transaction is a postgres.js sql.begin()
const engine = createIdempotency({ sql, schema });
const webhooks = new Webhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();
await pgjs.unsafe(`create table ${schema}.orders (id serial primary key, note text not null)`);
const request = (key: string, body: unknown) => ({
  tenant: 'acme',
  key,
  fingerprint: fingerprint({ method: 'POST', url: '/orders', body }),
});

try {
  // 1. postgres.js owns each transaction the engine opens: write with postgres.js' API through postgresOf(tx).
  const first = await engine.execute(request('key-1', { note: 'one' }), async (tx) => {
    const trx = postgresOf(tx);
    const [order] = await trx`insert into ${trx(schema)}.orders ${trx({ note: 'one' })} returning id, note`;
    await webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: order });
    return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
  });
  console.log('engine-opened:', first.kind); // engine-opened: executed

  // 2. Inside a transaction your code opened with sql.begin(): postgresBegin is sql.begin() with
  //    Surety joined to it (postgresTx(trx) by hand; the wake-ups run after COMMIT).
  const second = await postgresBegin(pgjs, (trx, joined) =>
    engine.using(joined).execute(request('key-2', { note: 'two' }), async () => {
      const [order] = await trx`insert into ${trx(schema)}.orders ${trx({ note: 'two' })} returning id, note`;
      await webhooks.publish(joined, { tenant: 'acme', type: 'order.created', data: order });
      return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
    }),
  );
  console.log('your begin():', second.kind); // your begin(): executed

  const again = await engine.execute(request('key-1', { note: 'one' }), async () => {
    throw new Error('not run: the key is stored');
  });
  const [{ n }] = await pgjs`select count(*)::int as n from ${pgjs(schema)}.orders`;
  console.log('retry:', again.kind, '| orders:', n); // retry: replayed | orders: 2
} finally {
  await pgjs.unsafe(`drop schema ${schema} cascade`);
  await pgjs.end();
}
