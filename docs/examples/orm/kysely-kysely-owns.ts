// Kysely, Kysely owns the transaction: Surety's engine and publish() run inside db.transaction(),
// on Kysely's own pool. Needs PostgreSQL (DATABASE_URL): Kysely ships no PGlite dialect.
import { kyselyOf, kyselySql, kyselyTx } from '@surety/db/kysely';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import { createWebhooks } from '@surety/webhooks';
import Fastify from 'fastify';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

interface Database {
  payments: { id: string; cents: number };
}

const schema = 'example_kysely_owns';
const db = new Kysely<Database>({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) }),
});
const sql = kyselySql(db); // every Surety transaction is a Kysely transaction
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
  const trx = kyselyOf<Database>(tx).withSchema(schema); // Kysely's own transaction object
  const id = `pay_${Date.now()}`;
  await trx.insertInto('payments').values({ id, cents: req.body.cents }).execute();
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

// A transaction your code opened itself: publish() joins it through kyselyTx(trx).
await db.transaction().execute(async (trx) => {
  await trx.withSchema(schema).updateTable('payments').set({ cents: 2500 }).execute();
  await webhooks.publish(kyselyTx(trx), { tenant: 'demo', type: 'payment.updated', data: {} });
});
const { rows } = await sql.query<{ n: number; cents: number }>(
  `select count(*)::int as n, max(cents) as cents from ${schema}.payments`,
);
console.log(first.statusCode, retry.headers['idempotent-replayed'], rows[0]?.n, rows[0]?.cents);
// prints: 201 true 1 2500

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await db.destroy();
