// @surety/db/prisma: Surety joined to Prisma 7's interactive transaction (with @prisma/adapter-pg),
// through the shared table (orm-scenarios.ts), and Prisma's own nested transaction inside it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PrismaPg } from '@prisma/adapter-pg';
import { createTestDatabase, needsPostgres, postgresUrl } from '@surety/db/testing';
import {
  onSurety,
  prismaAdapterOnSurety,
  prismaOf,
  prismaSql,
  prismaTransaction,
  prismaTx,
} from '../src/prisma.js';
import { afterTheWrite, created, type OrmContext, ormScenarios, publishCreated } from './orm-scenarios.js';
import {
  generatePrismaClient,
  type OrderTx,
  type PrismaClientClass,
  type TestPrisma,
} from './prisma-client.js';

let PrismaClient: PrismaClientClass;
let remove = async () => {};
before(async () => {
  if (needsPostgres) return;
  ({ PrismaClient, remove } = await generatePrismaClient());
});
after(() => remove());

const clientFor = (schema: string): TestPrisma =>
  new PrismaClient({ adapter: new PrismaPg({ connectionString: postgresUrl!, max: 12 }, { schema }) });

// Long enough for ten transactions queued on one key on a loaded machine (Prisma's default is 5 s).
const limits = { maxWait: 20_000, timeout: 20_000 };

ormScenarios('Prisma', {
  'Surety owns the transaction (prismaAdapterOnSurety, onSurety)': async (ctx: OrmContext) => {
    const prisma = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema: ctx.db.schema }) });
    return {
      run: ({ key, note, fail, pause, status }) =>
        ctx.engine.execute({ tenant: ctx.tenant, key, fingerprint: note }, (tx) =>
          onSurety(tx, async () => {
            await prisma.order.create({ data: { note } });
            await publishCreated(ctx, tx, note);
            await pause?.();
            if (fail) throw afterTheWrite();
            return created(note, status);
          }),
        ),
      receive: ({ id, note, fail }) =>
        ctx.db.sql.transaction((tx) =>
          ctx.inbox.receive(tx, { id }, () =>
            onSurety(tx, async () => {
              await prisma.order.create({ data: { note } });
              if (fail) throw afterTheWrite();
            }),
          ),
        ),
      close: () => prisma.$disconnect(),
    };
  },
  'Prisma owns each transaction (prismaSql, prismaOf)': async (ctx: OrmContext) => {
    const prisma = clientFor(ctx.db.schema);
    const sql = prismaSql(prisma, limits);
    const engine = ctx.engine.using(sql);
    return {
      run: ({ key, note, fail, pause, status }) =>
        engine.execute({ tenant: ctx.tenant, key, fingerprint: note }, async (tx) => {
          await prismaOf<OrderTx>(tx).order.create({ data: { note } });
          await publishCreated(ctx, tx, note);
          await pause?.();
          if (fail) throw afterTheWrite();
          return created(note, status);
        }),
      receive: ({ id, note, fail }) =>
        sql.transaction((tx) =>
          ctx.inbox.receive(tx, { id }, async () => {
            await prismaOf<OrderTx>(tx).order.create({ data: { note } });
            if (fail) throw afterTheWrite();
          }),
        ),
      close: () => prisma.$disconnect(),
    };
  },
  'inside a transaction Prisma opened ($transaction, prismaTx)': async (ctx: OrmContext) => {
    const prisma = clientFor(ctx.db.schema);
    return {
      run: ({ key, note, fail, pause, status }) =>
        prismaTransaction(
          prisma,
          (tx, joined) =>
            ctx.engine.using(joined).execute({ tenant: ctx.tenant, key, fingerprint: note }, async () => {
              await tx.order.create({ data: { note } });
              await publishCreated(ctx, joined, note);
              await pause?.();
              if (fail) throw afterTheWrite();
              return created(note, status);
            }),
          limits,
        ),
      receive: ({ id, note, fail }) =>
        prismaTransaction(
          prisma,
          (tx, joined) =>
            ctx.inbox.receive(joined, { id }, async () => {
              await tx.order.create({ data: { note } });
              if (fail) throw afterTheWrite();
            }),
          limits,
        ),
      close: () => prisma.$disconnect(),
    };
  },
});

test('Prisma: a joined transaction refuses atCommit with a coded error; Prisma commits what it wrote', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table "${db.schema}".orders (id serial primary key, note text not null unique)`);
  const prisma = clientFor(db.schema);
  try {
    await prisma.$transaction(async (tx) => {
      const joined = prismaTx(tx);
      assert.throws(() => joined.atCommit('select 1'), { code: 'SURETY_DB_TRANSACTION_OWNED' });
      // A nested Surety transaction that fails is rolled back to its savepoint; Prisma's goes on.
      await assert.rejects(
        joined.transaction(async (inner) => {
          await inner.query(`insert into "${db.schema}".orders (note) values ($1)`, ['rolled back']);
          await inner.query('select 1/0');
        }),
        { code: '22012' },
      );
      await tx.order.create({ data: { note: 'kept' } });
    });
    assert.deepEqual(
      (await prisma.order.findMany()).map((o) => o.note),
      ['kept'],
    );
  } finally {
    await prisma.$disconnect();
    await db.close();
  }
});

test('Prisma inside Surety’s transaction: a nested write and $transaction are SAVEPOINTs, never an early COMMIT', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const t = `"${db.schema}"`;
  await db.sql.query(`create schema ${t}`);
  await db.sql.query(`create table ${t}.orders (id serial primary key, note text not null unique)`);
  await db.sql.query(
    `create table ${t}.lines (id serial primary key, order_id int not null references ${t}.orders, note text not null)`,
  );
  const prisma = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema: db.schema }) });
  const reader = clientFor(db.schema);
  const count = async () =>
    Number((await db.sql.query<{ n: string }>(`select count(*)::text as n from ${t}.lines`)).rows[0]!.n);
  try {
    // A nested write is one of Prisma's own transactions (BEGIN … COMMIT): here a savepoint.
    await assert.rejects(
      db.sql.transaction((tx) =>
        onSurety(tx, async () => {
          await prisma.order.create({
            data: { note: 'nested', lines: { create: [{ note: 'a' }, { note: 'b' }] } },
          });
          assert.equal(await count(), 0, 'nothing visible outside: the nested write did not commit');
          throw new Error('roll back');
        }),
      ),
      /roll back/,
    );
    assert.equal(await count(), 0);
    // $transaction inside: rolled back to its savepoint, Surety's transaction goes on and commits.
    await db.sql.transaction((tx) =>
      onSurety(tx, async () => {
        await prisma.order.create({ data: { note: 'kept', lines: { create: [{ note: 'a' }] } } });
        await assert.rejects(
          prisma.$transaction(async (inner) => {
            await inner.order.create({ data: { note: 'inner' } });
            throw new Error('inner fails');
          }),
          /inner fails/,
        );
      }),
    );
    assert.deepEqual(
      (await reader.order.findMany()).map((o) => o.note),
      ['kept'],
    );
    assert.equal(await count(), 1);
    // Outside onSurety the client refuses to run (it has no connection of its own).
    await assert.rejects(prisma.order.findMany(), /inside a Surety transaction/);
  } finally {
    await prisma.$disconnect();
    await reader.$disconnect();
    await db.close();
  }
});
