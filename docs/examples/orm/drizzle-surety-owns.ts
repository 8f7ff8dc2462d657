// Drizzle, Surety owns the transaction: the route's Drizzle runs on the key's transaction, with
// rows by position (a self-join keeps both `name` columns). Needs PostgreSQL (DATABASE_URL):
// @surety/db/drizzle loads node-postgres' Drizzle only; on PGlite, import from @surety/db/drizzle-pglite.
import { createPgSql } from '@surety/db';
import { drizzleOf } from '@surety/db/drizzle';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import { createWebhooks } from '@surety/webhooks';
import { eq } from 'drizzle-orm';
import { alias, integer, pgSchema, text } from 'drizzle-orm/pg-core';
import Fastify from 'fastify';

const schema = 'example_drizzle_surety';
const payments = pgSchema(schema).table('payments', {
  id: text('id').primaryKey(),
  cents: integer('cents').notNull(),
  refundOf: text('refund_of'),
});

const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
await sql.query(`create schema if not exists ${schema}`);
await sql.query(
  `create table if not exists ${schema}.payments (id text primary key, cents int not null, refund_of text)`,
);
const engine = createIdempotency({ sql, schema });
const webhooks = createWebhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();

const app = Fastify();
await app.register(idempotency, { engine });
app.post<{ Body: { cents: number; refundOf?: string } }>(
  '/payments',
  { config: { idempotency: true } },
  async (req, reply) => {
    const tx = txOf(req);
    const db = drizzleOf(tx); // Drizzle on the key's transaction
    const id = `pay_${req.headers['idempotency-key']}`;
    await db.insert(payments).values({ id, cents: req.body.cents, refundOf: req.body.refundOf ?? null });
    await webhooks.publish(tx, { tenant: 'demo', type: 'payment.created', data: { id } });
    reply.code(201);
    return { id };
  },
);

const send = (key: string, payload: object) =>
  app.inject({ method: 'POST', url: '/payments', headers: { 'idempotency-key': key }, payload });
await send('a', { cents: 1999 });
await send('b', { cents: -1999, refundOf: 'pay_a' });
const retry = await send('b', { cents: -1999, refundOf: 'pay_a' });

// A self-join: two `id` and two `cents` columns, mapped by position.
const original = alias(payments, 'original');
const refunds = await sql.transaction((tx) =>
  drizzleOf(tx)
    .select({
      refund: payments.id,
      cents: payments.cents,
      original: original.id,
      originalCents: original.cents,
    })
    .from(payments)
    .innerJoin(original, eq(payments.refundOf, original.id)),
);
console.log(retry.headers['idempotent-replayed'], JSON.stringify(refunds));
// prints: true [{"refund":"pay_b","cents":-1999,"original":"pay_a","originalCents":1999}]

await app.close();
await sql.query(`drop schema ${schema} cascade`);
await sql.close();
