// Prisma, Surety owns the transaction (prismaAdapterOnSurety, onSurety), with Express. Installs:
// @prisma/client, @prisma/adapter-pg, prisma (to generate the client), express.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createPgSql } from '@surety/db';
import { onSurety, prismaAdapterOnSurety } from '@surety/db/prisma';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/express';
import express from 'express';
import { check, type PaymentBody } from './check.js';
import { PrismaClient } from './generated/prisma/client.js';

const schema = `smoke_prisma_surety_${process.pid}`;
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
await sql.query(`create schema ${schema}`);
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);
const engine = createIdempotency({ sql, schema });
await engine.migrate();
// One client, made once, whose statements run on the Surety transaction of onSurety(tx, …).
const prisma = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema }) });

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  const body = req.body as PaymentBody;
  // Returned unawaited: onSurety starts Prisma's lazy promise inside the transaction.
  const payment = await onSurety(txOf(req), () =>
    prisma.payment.create({ data: { id: body.id, cents: body.cents } }),
  );
  if (body.fail) throw new Error('the card network timed out, after the write');
  res.status(201).json({ id: payment.id, cents: payment.cents });
});
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');

await check('prisma (Surety owns the transaction: onSurety, Express)', {
  url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  count: async (id) =>
    (await sql.query<{ n: number }>(`select count(*)::int as n from ${schema}.payments where id = $1`, [id]))
      .rows[0]!.n,
  close: async () => {
    server.close();
    await prisma.$disconnect();
    await sql.query(`drop schema ${schema} cascade`);
    await sql.close();
  },
});
