// Drizzle on Surety's transaction (drizzleOf), node-postgres, with Express. Installs: drizzle-orm,
// pg, express, and no PGlite: @surety/db/drizzle must load without it.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createPgSql } from '@surety/db';
import { drizzleOf } from '@surety/db/drizzle';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/express';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';
import express from 'express';
import { check, type PaymentBody } from './check.js';

const schema = `smoke_drizzle_${process.pid}`;
const payments = pgSchema(schema).table('payments', {
  id: text('id').primaryKey(),
  cents: integer('cents').notNull(),
});
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
await sql.query(`create schema ${schema}`);
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);
const engine = createIdempotency({ sql, schema });
await engine.migrate();

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  const body = req.body as PaymentBody;
  await drizzleOf(txOf(req)).insert(payments).values({ id: body.id, cents: body.cents }); // the key's transaction
  if (body.fail) throw new Error('the card network timed out, after the write');
  res.status(201).json({ id: body.id, cents: body.cents });
});
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');

await check('drizzle (node-postgres, Surety owns the transaction, Express)', {
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  count: async (id) =>
    (await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments where id = $1`, [id]))
      .rows[0]!.n,
  close: async () => {
    server.close();
    await sql.query(`drop schema ${schema} cascade`);
    await sql.close();
  },
});
