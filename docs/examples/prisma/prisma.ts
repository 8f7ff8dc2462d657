// Prisma 7 (@prisma/adapter-pg), all three ways: Surety owns the transaction (onSurety), Prisma owns
// each one the engine opens (prismaSql), or the engine joins an interactive transaction of your own
// (prismaTransaction). Needs PostgreSQL (DATABASE_URL), and the client generated from schema.prisma
// (`prisma generate`, at build time: the generated client is not committed).
import { PrismaPg } from '@prisma/adapter-pg';
import { createPgSql } from '@surety/db';
import { onSurety, prismaAdapterOnSurety, prismaOf, prismaSql, prismaTransaction } from '@surety/db/prisma';
import { createIdempotency, fingerprint } from '@surety/idempotency';
import { createWebhooks } from '@surety/webhooks';
import { type Prisma, PrismaClient } from './generated/prisma/client.js';

const schema = `example_prisma_${process.pid}`;
const sql = createPgSql({ connectionString: process.env.DATABASE_URL });
const engine = createIdempotency({ sql, schema });
const webhooks = createWebhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();
await sql.query(`create table ${schema}.payments (id text primary key, cents int not null)`);
const request = (key: string, body: { cents: number }) => ({
  tenant: 'acme',
  key,
  fingerprint: fingerprint({ method: 'POST', url: '/payments', body }),
});
const created = (payment: unknown) => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(payment),
});

// 1. Surety owns the transaction: one client, made once, whose statements run on the Surety
//    transaction of onSurety(tx, …) (node-postgres backend). Prisma's nested writes and $transaction
//    become SAVEPOINTs in it; prismaOnSurety(tx, client, (db) => …) binds a handler's calls to it.
const prismaOnSurety = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema }) });
const first = await engine.execute(request('key-1', { cents: 1999 }), (tx) =>
  onSurety(tx, async () => {
    const payment = await prismaOnSurety.payment.create({ data: { id: 'pay_1', cents: 1999 } });
    await webhooks.publish(tx, { tenant: 'acme', type: 'payment.created', data: payment });
    return created(payment);
  }),
);

// 2a. Prisma owns each transaction the engine opens (an interactive $transaction); maxWait and
//     timeout are Prisma's (see "Sizing maxWait and timeout" below).
const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: process.env.DATABASE_URL }, { schema }),
});
const second = await engine
  .using(prismaSql(prisma, { maxWait: 5_000, timeout: 10_000 }))
  .execute(request('key-2', { cents: 500 }), async (tx) =>
    created(
      await prismaOf<Prisma.TransactionClient>(tx).payment.create({ data: { id: 'pay_2', cents: 500 } }),
    ),
  );

// 2b. Inside an interactive transaction of your own: prismaTransaction is prisma.$transaction() with
//     Surety joined to it (prismaTx(tx) by hand); the key commits when, and only when, Prisma commits.
const third = await prismaTransaction(prisma, (tx, joined) =>
  engine.using(joined).execute(request('key-3', { cents: 42 }), async () => {
    const payment = await tx.payment.create({ data: { id: 'pay_3', cents: 42 } });
    await webhooks.publish(joined, { tenant: 'acme', type: 'payment.created', data: payment });
    return created(payment);
  }),
);
console.log(first.kind, second.kind, third.kind, await prisma.payment.count());
// prints: executed executed executed 3

await sql.query(`drop schema ${schema} cascade`);
await Promise.all([prisma.$disconnect(), prismaOnSurety.$disconnect(), sql.close()]);
