// Prisma owns each transaction (prismaSql, prismaOf), with Express: the engine's claim, its
// migrations and the payment run in Prisma's interactive transactions. Installs: @prisma/client,
// @prisma/adapter-pg, prisma (to generate the client), express.
import { PrismaPg } from '@prisma/adapter-pg';
import { prismaOf, prismaSql } from '@surety/db/prisma';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/express';
import express from 'express';
import { check, type PaymentBody } from './check.js';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';
import { urlOf } from './surety.js';

const schema = `smoke_prisma_owns_${process.pid}`;
const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }, { schema }),
});
// maxWait: how long a request waits for one of the pool's connections before the engine answers
// 503 with Retry-After; timeout: the longest a handler's transaction may run (docs/orm.md).
const sql = prismaSql(prisma, { maxWait: 5_000, timeout: 10_000 });
const engine = createIdempotency({ sql, schema });
await engine.migrate(); // through Prisma's raw queries
await prisma.$executeRawUnsafe(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = express();
app.post('/payments', express.json(), idempotency({ engine }), async (req, res) => {
  const body = req.body as PaymentBody;
  const tx = prismaOf<Prisma.TransactionClient>(txOf(req)); // Prisma's interactive transaction
  const payment = await tx.payment.create({ data: { id: body.id, cents: body.cents } });
  if (body.fail) throw new Error('the card network timed out, after the write');
  res.status(201).json({ id: payment.id, cents: payment.cents });
});
const server = app.listen(0, '127.0.0.1');

await check('prisma (Prisma owns the transaction: prismaSql, Express)', {
  url: await urlOf(server),
  count: (id) => prisma.payment.count({ where: { id } }),
  close: async () => {
    server.close();
    await prisma.$executeRawUnsafe(`drop schema ${schema} cascade`);
    await prisma.$disconnect();
  },
});
