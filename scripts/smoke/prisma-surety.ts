// Prisma, Surety owns the transaction (prismaAdapterOnSurety, onSurety), with Express. Installs:
// @prisma/client, @prisma/adapter-pg, express (the prisma CLI generates the client at build time).
import { onSurety, prismaAdapterOnSurety } from '@surety/db/prisma';
import { idempotency, txOf } from '@surety/idempotency/express';
import express from 'express';
import { check, type PaymentBody } from './check.js';
import { PrismaClient } from './generated/prisma/client.js';
import { suretyOnPg, urlOf } from './surety.js';

const { schema, engine, count, drop } = await suretyOnPg('prisma_surety');
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

await check('prisma (Surety owns the transaction: onSurety, Express)', {
  url: await urlOf(server),
  count,
  close: async () => {
    server.close();
    await prisma.$disconnect();
    await drop();
  },
});
