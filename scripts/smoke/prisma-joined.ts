// Prisma, inside an interactive transaction the route opens itself (prismaTransaction:
// prisma.$transaction() with Surety joined to it), with Express: the engine claims the key in a
// SAVEPOINT of it, and the key commits with the payment when Prisma commits. Installs:
// @prisma/client, @prisma/adapter-pg, express (the prisma CLI generates the client at build time).
import { PrismaPg } from '@prisma/adapter-pg';
import { prismaSql, prismaTransaction } from '@surety/db/prisma';
import { createIdempotency } from '@surety/idempotency';
import express from 'express';
import { check, type PaymentBody } from './check.js';
import { PrismaClient } from './generated/prisma/client.js';
import { created, joinedPost } from './joined.js';
import { urlOf } from './surety.js';

const schema = `smoke_prisma_joined_${process.pid}`;
const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }, { schema }),
});
const engine = createIdempotency({ sql: prismaSql(prisma), schema });
await engine.migrate();
await prisma.$executeRawUnsafe(`create table ${schema}.payments (id text primary key, cents int not null)`);

const app = express();
app.post('/payments', express.json(), async (req, res) => {
  const body = req.body as PaymentBody;
  const answer = await joinedPost(req.headers['idempotency-key'], body, (request) =>
    prismaTransaction(
      prisma,
      (tx, joined) =>
        engine.using(joined).execute(request, async () => {
          await tx.payment.create({ data: { id: body.id, cents: body.cents } });
          if (body.fail) throw new Error('the card network timed out, after the write');
          return created(body);
        }),
      { maxWait: 5_000, timeout: 10_000 },
    ),
  );
  res.status(answer.status).set(answer.headers).send(answer.body);
});
const server = app.listen(0, '127.0.0.1');

await check('prisma (a transaction you opened: prismaTransaction, Express)', {
  url: await urlOf(server),
  count: (id) => prisma.payment.count({ where: { id } }),
  close: async () => {
    server.close();
    await prisma.$executeRawUnsafe(`drop schema ${schema} cascade`);
    await prisma.$disconnect();
  },
});
