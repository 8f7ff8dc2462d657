// Drizzle on Surety's transaction (drizzleOf), node-postgres, with Express. Installs: drizzle-orm,
// pg, express, and no PGlite: @surety/db/drizzle must load without it.
import { drizzleOf } from '@surety/db/drizzle';
import { idempotency, txOf } from '@surety/idempotency/express';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import express from 'express';
import { check, type PaymentBody } from './check.js';
import { suretyOnPg, urlOf } from './surety.js';

const { schema, engine, count, drop } = await suretyOnPg('drizzle');
const payments = pgSchema(schema).table('payments', {
  id: text('id').primaryKey(),
  cents: integer('cents').notNull(),
});

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  const body = req.body as PaymentBody;
  await drizzleOf(txOf(req)).insert(payments).values({ id: body.id, cents: body.cents }); // the key's transaction
  if (body.fail) throw new Error('the card network timed out, after the write');
  res.status(201).json({ id: body.id, cents: body.cents });
});
const server = app.listen(0, '127.0.0.1');

await check('drizzle (node-postgres, Surety owns the transaction, Express)', {
  url: await urlOf(server),
  count,
  close: async () => {
    server.close();
    await drop();
  },
});
