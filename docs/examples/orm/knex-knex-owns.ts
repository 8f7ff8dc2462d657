// knex, knex owns the transaction: Surety's engine and publish() run inside knex.transaction(), on
// knex's own pool. Needs PostgreSQL (DATABASE_URL): knex ships no PGlite dialect.
import { knexOf, knexSql, knexTx } from '@surety/db/knex';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import { createWebhooks } from '@surety/webhooks';
import Fastify from 'fastify';
import knexFactory from 'knex';

const schema = 'example_knex_owns';
const knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 5 } });
const sql = knexSql(knex); // every Surety transaction is a knex transaction
await sql.query(`create schema if not exists ${schema}`);
await sql.query(`create table if not exists ${schema}.payments (id text primary key, cents int not null)`);
const engine = createIdempotency({ sql, schema });
const webhooks = createWebhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: { cents: number } }>('/payments', { config: { idempotency: true } }, async (req, reply) => {
  const tx = txOf(req);
  const id = `pay_${Date.now()}`;
  await knexOf(tx).withSchema(schema).table('payments').insert({ id, cents: req.body.cents }); // knex's own trx
  await webhooks.publish(tx, { tenant: 'demo', type: 'payment.created', data: { id } });
  reply.code(201);
  return { id };
});

const send = () =>
  app.inject({
    method: 'POST',
    url: '/payments',
    headers: { 'idempotency-key': 'k-1' },
    payload: { cents: 1999 },
  });
const first = await send();
const retry = await send();

// A transaction your code opened itself: publish() joins it through knexTx(trx).
await knex.transaction(async (trx) => {
  await trx.withSchema(schema).table('payments').update({ cents: 2500 });
  await webhooks.publish(knexTx(trx), { tenant: 'demo', type: 'payment.updated', data: {} });
});
const [row] = await knex.withSchema(schema).table('payments').count({ n: '*' }).max({ cents: 'cents' });
console.log(first.statusCode, retry.headers['idempotent-replayed'], Number(row?.n), row?.cents);
// prints: 201 true 1 2500

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await knex.destroy();
