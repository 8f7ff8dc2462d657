// Drizzle, Drizzle owns the transaction: Surety's engine and publish() run inside db.transaction(),
// on Drizzle's node-postgres pool. Needs PostgreSQL (DATABASE_URL); drizzleSql(db) takes a PGlite
// Drizzle (drizzle-orm/pglite) the same way.
import { drizzleOf, drizzleSql, drizzleTx } from '@surety/db/drizzle';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import { createWebhooks } from '@surety/webhooks';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import Fastify from 'fastify';
import pg from 'pg';

const schema = 'example_drizzle_owns';
const payments = pgSchema(schema).table('payments', {
  id: text('id').primaryKey(),
  cents: integer('cents').notNull(),
});

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const db = drizzlePg({ client: pool });
const sql = drizzleSql(db); // every Surety transaction is a Drizzle transaction
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
  await drizzleOf(tx).insert(payments).values({ id, cents: req.body.cents }); // Drizzle's own transaction
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

// A transaction your code opened itself: publish() joins it through drizzleTx(trx).
await db.transaction(async (trx) => {
  await trx.update(payments).set({ cents: 2500 });
  await webhooks.publish(drizzleTx(trx), { tenant: 'demo', type: 'payment.updated', data: {} });
});
const rows = await db.select().from(payments);
console.log(first.statusCode, retry.headers['idempotent-replayed'], rows.length, rows[0]?.cents);
// prints: 201 true 1 2500

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await pool.end();
