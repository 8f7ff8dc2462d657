// knex, Surety owns the transaction: the route's knex is bound to the key's transaction.
// Runs on PostgreSQL (DATABASE_URL) or, without it, on the embedded PGlite.
import { openSql } from '@surety/db';
import { knexOf } from '@surety/db/knex';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import { createWebhooks } from '@surety/webhooks';
import Fastify from 'fastify';

const schema = 'example_knex_surety';
const sql = await openSql({ databaseUrl: process.env.DATABASE_URL });
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
  const knex = knexOf(tx); // knex on the key's transaction
  const [payment] = await knex
    .withSchema(schema)
    .table('payments')
    .insert({ id: `pay_${Date.now()}`, cents: req.body.cents })
    .returning(['id', 'cents']);
  // knex's own transaction inside it is a savepoint: its failure undoes only itself
  await knex
    .transaction((trx) => trx.withSchema(schema).table('payments').insert({ id: payment.id, cents: 0 }))
    .catch(() => {}); // duplicate id: rolled back to the savepoint, the payment stays
  await webhooks.publish(tx, { tenant: 'demo', type: 'payment.created', data: payment });
  reply.code(201);
  return payment;
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
const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments`);
console.log(first.statusCode, retry.headers['idempotent-replayed'], rows[0]?.n);
// prints: 201 true 1

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await sql.close();
