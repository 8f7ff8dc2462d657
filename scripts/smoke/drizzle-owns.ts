// Drizzle owns the transaction (drizzleSql, drizzleOf), node-postgres, with Express: the engine's
// claim, its migrations and the payment run in Drizzle's transactions, on Drizzle's pool. Installs:
// drizzle-orm, pg, express, and no PGlite.
import { drizzleOf, drizzleSql } from '@surety/db/drizzle';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/express';
import { count as countRows, eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import express from 'express';
import pg from 'pg';
import { check, type PaymentBody } from './check.js';
import { urlOf } from './surety.js';

const schema = `smoke_drizzle_owns_${process.pid}`;
const payments = pgSchema(schema).table('payments', {
  id: text('id').primaryKey(),
  cents: integer('cents').notNull(),
});
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const db = drizzle({ client: pool });
const sql = drizzleSql(db); // every Surety transaction is a Drizzle transaction
const engine = createIdempotency({ sql, schema });
await engine.migrate(); // through Drizzle
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  const body = req.body as PaymentBody;
  await drizzleOf(txOf(req)).insert(payments).values({ id: body.id, cents: body.cents }); // Drizzle's own transaction
  if (body.fail) throw new Error('the card network timed out, after the write');
  res.status(201).json({ id: body.id, cents: body.cents });
});
const server = app.listen(0, '127.0.0.1');

await check('drizzle (Drizzle owns the transaction: drizzleSql, node-postgres, Express)', {
  url: await urlOf(server),
  count: async (id) => (await db.select({ n: countRows() }).from(payments).where(eq(payments.id, id)))[0]!.n,
  close: async () => {
    server.close();
    await sql.query(`drop schema ${schema} cascade`);
    await pool.end();
  },
});
