// Kysely, Surety owns the transaction: the route's Kysely is bound to the key's transaction.
// Runs on PostgreSQL (DATABASE_URL) or, without it, on the embedded PGlite.
import { openSql } from '@surety/db';
import { kyselyOf } from '@surety/db/kysely';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import { createWebhooks } from '@surety/webhooks';
import Fastify from 'fastify';

interface Database {
  payments: { id: string; cents: number };
}

const schema = 'example_kysely_surety';
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
  const db = kyselyOf<Database>(tx).withSchema(schema); // typed, on the key's transaction
  const id = `pay_${Date.now()}`;
  await db.insertInto('payments').values({ id, cents: req.body.cents }).execute();
  await webhooks.publish(tx, { tenant: 'demo', type: 'payment.created', data: { id } }); // same transaction
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
const { rows } = await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments`);
console.log(first.statusCode, retry.statusCode, retry.headers['idempotent-replayed'], rows[0]?.n);
// prints: 201 201 true 1

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await sql.close();
