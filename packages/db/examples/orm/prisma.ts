// Prisma 7 (@prisma/adapter-pg) and Surety, both ways, in the workspace (docs/orm.md shows
// docs/examples/prisma/prisma.ts, which the smoke matrix runs). Needs DATABASE_URL, and a
// client generated from a schema with `model Order { id Int @id @default(autoincrement()) note String @unique }`
// mapped to "orders": in your app `import { PrismaClient } from './generated/prisma/client'`; here the
// test that runs the examples generates one and passes its path in PRISMA_CLIENT.
import { PrismaPg } from '@prisma/adapter-pg';
import { createPgSql } from '@surety/db';
import { onSurety, prismaAdapterOnSurety, prismaOf, prismaSql, prismaTransaction } from '@surety/db/prisma';
import { createIdempotency, fingerprint } from '@surety/idempotency';
import { Webhooks } from '@surety/webhooks';

interface Db {
  order: {
    create(args: { data: { note: string } }): Promise<{ id: number; note: string }>;
    count(): Promise<number>;
  };
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}
interface Client extends Db {
  $transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  $disconnect(): Promise<void>;
}
const { PrismaClient } = (await import(process.env.PRISMA_CLIENT!)) as {
  PrismaClient: new (options: { adapter: unknown }) => Client;
};

const url = process.env.DATABASE_URL!;
const schema = `example_prisma_${process.pid}`;
const sql = createPgSql({ connectionString: url });
const engine = createIdempotency({ sql, schema });
const webhooks = new Webhooks({ sql, schema });
await engine.migrate();
await webhooks.migrate();
await sql.query(`create table ${schema}.orders (id serial primary key, note text not null unique)`);
const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }, { schema }) });
// One client, made once, that writes only inside the Surety transaction of onSurety(tx, …).
const prismaOnSurety = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema }) });
const request = (key: string, note: string) => ({
  tenant: 'acme',
  key,
  fingerprint: fingerprint({ method: 'POST', url: '/orders', body: { note } }),
});
const answer = (order: unknown) => ({
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(order),
});

try {
  // 1. Surety owns the transaction; Prisma's nested writes and $transaction become SAVEPOINTs in it.
  const first = await engine.execute(request('key-1', 'one'), (tx) =>
    onSurety(tx, async () => {
      const order = await prismaOnSurety.order.create({ data: { note: 'one' } });
      await webhooks.publish(tx, { tenant: 'acme', type: 'order.created', data: order });
      return answer(order);
    }),
  );
  console.log('Surety-owned:', first.kind); // Surety-owned: executed

  // 2a. Prisma owns each transaction the engine opens (an interactive prisma.$transaction).
  const second = await engine
    .using(prismaSql(prisma))
    .execute(request('key-2', 'two'), async (tx) =>
      answer(await prismaOf<Db>(tx).order.create({ data: { note: 'two' } })),
    );
  // 2b. Inside an interactive transaction your code opened: prismaTransaction is prisma.$transaction()
  //     with Surety joined to it (prismaTx(tx) by hand).
  const third = await prismaTransaction(prisma, (tx, joined) =>
    engine.using(joined).execute(request('key-3', 'three'), async () => {
      const order = await tx.order.create({ data: { note: 'three' } });
      await webhooks.publish(joined, { tenant: 'acme', type: 'order.created', data: order });
      return answer(order);
    }),
  );
  console.log('Prisma-owned:', second.kind, third.kind); // Prisma-owned: executed executed
  console.log('orders:', await prisma.order.count()); // orders: 3
} finally {
  await sql.query(`drop schema ${schema} cascade`);
  await Promise.all([prisma.$disconnect(), prismaOnSurety.$disconnect(), sql.close()]);
}
