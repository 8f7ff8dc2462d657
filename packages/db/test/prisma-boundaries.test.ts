// @surety/db/prisma where a user meets Prisma's edges (issue 31): a PrismaPromise handed back
// unawaited from onSurety (Prisma's promises start on `.then()`), Surety's own statements that return
// `void` (migrations, NOTIFY) through Prisma's raw queries, and Prisma's transaction-start timeout
// (DatabaseUnavailableError, and through an idempotency adapter a 503 with Retry-After).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PrismaPg } from '@prisma/adapter-pg';
import { isDatabaseUnavailableError, migrate } from '@surety/db';
import { createTestDatabase, needsPostgres, postgresUrl } from '@surety/db/testing';
import { createIdempotency } from '@surety/idempotency';
import { idempotency, txOf } from '@surety/idempotency/fastify';
import Fastify from 'fastify';
import { onSurety, prismaAdapterOnSurety, prismaOnSurety, prismaSql } from '../src/prisma.js';
import { generatePrismaClient, type PrismaClientClass } from './prisma-client.js';

let PrismaClient: PrismaClientClass;
let remove = async () => {};
before(async () => {
  if (needsPostgres) return;
  ({ PrismaClient, remove } = await generatePrismaClient());
});
after(() => remove());

test('onSurety: a Prisma call returned unawaited (a lazy PrismaPromise) runs in the Surety transaction', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table "${db.schema}".orders (id serial primary key, note text not null unique)`);
  const prisma = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema: db.schema }) });
  try {
    // The one-liner a user writes: the PrismaPromise starts only when the caller awaits it, after
    // onSurety's callback returned.
    const order = await db.sql.transaction((tx) =>
      onSurety(tx, () => prisma.order.create({ data: { note: 'one-liner' } })),
    );
    assert.equal(order.note, 'one-liner');
    const n = await db.sql.transaction((tx) => onSurety(tx, () => prisma.$queryRawUnsafe('select 1 as one')));
    assert.deepEqual(n, [{ one: 1 }]);
  } finally {
    await prisma.$disconnect();
    await db.close();
  }
});

test('prismaSql: migrations and NOTIFY (statements returning void) run through Prisma', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: postgresUrl!, max: 2 }, { schema: db.schema }),
  });
  try {
    const sql = prismaSql(prisma);
    const set = {
      set: 'boundaries',
      migrations: [
        { id: 1, name: 'orders', script: 'create table :SCHEMA.t (a int); create index on :SCHEMA.t (a);' },
      ],
    };
    assert.deepEqual((await migrate(sql, { schema: db.schema, sets: [set] })).applied, [
      'boundaries/1_orders',
    ]);
    assert.deepEqual((await migrate(sql, { schema: db.schema, sets: [set] })).applied, []);
    await sql.notify('surety_boundaries', 'y');
  } finally {
    await prisma.$disconnect();
    await db.close();
  }
});

test('prismaSql: "Unable to start a transaction in the given time" (maxWait) is DatabaseUnavailableError', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: postgresUrl!, max: 1 }) });
  try {
    const sql = prismaSql(prisma, { maxWait: 200, timeout: 10_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let started!: () => void;
    const holding = new Promise<void>((r) => {
      started = r;
    });
    // The pool's one connection is held by a transaction; the next cannot start within maxWait.
    const holder = sql.transaction(async (tx) => {
      await tx.query('select 1 as one');
      started();
      await held;
    });
    await holding;
    const error = await sql.transaction((tx) => tx.query('select 1 as one')).catch((e: unknown) => e);
    release();
    await holder;
    assert.ok(isDatabaseUnavailableError(error), `not unavailable: ${String(error)}`);
    assert.equal((error as { code?: string }).code, 'SURETY_DB_UNAVAILABLE');
  } finally {
    await prisma.$disconnect();
    await db.close();
  }
});

test('prismaSql: the transaction-start timeout (P2028) reaches HTTP as 503 idempotency_store_unavailable with Retry-After', {
  skip: needsPostgres,
}, async () => {
  // The symptom: a slow handler holds the pool's connections, Prisma cannot start the next
  // request's transaction within maxWait, and the client got a 500. Through the Fastify adapter it is
  // a 503 with Retry-After (nothing was done: the client retries with the same key), and the slow
  // request still commits.
  const db = await createTestDatabase();
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: postgresUrl!, max: 1 }, { schema: db.schema }),
  });
  const engine = createIdempotency({
    sql: prismaSql(prisma, { maxWait: 200, timeout: 10_000 }),
    schema: db.schema,
    warnOnEmptyTransaction: false, // the handlers only read
  });
  const app = Fastify();
  try {
    await engine.migrate();
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let started!: () => void;
    const holding = new Promise<void>((r) => {
      started = r;
    });
    const outcomes: string[] = [];
    await app.register(idempotency, { engine, onOutcome: (outcome) => outcomes.push(outcome) });
    app.post<{ Body: { slow?: boolean } }>(
      '/orders',
      { config: { idempotency: true } },
      async (req, reply) => {
        await txOf(req).query('select 1 as one');
        if (req.body.slow) {
          started();
          await held;
        }
        reply.code(201);
        return { ok: true };
      },
    );
    const post = (key: string, body: object) =>
      app.inject({ method: 'POST', url: '/orders', headers: { 'idempotency-key': key }, payload: body });
    const slow = post('slow', { slow: true });
    await holding;
    const refused = await post('next', {});
    release();
    assert.equal(refused.statusCode, 503, refused.body);
    assert.equal(refused.headers['retry-after'], '1');
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    assert.equal(refused.json().code, 'idempotency_store_unavailable');
    assert.equal((await slow).statusCode, 201);
    assert.deepEqual(outcomes.sort(), ['executed', 'unavailable']);
    // The refused key was never claimed: its retry runs.
    assert.equal((await post('next', {})).statusCode, 201);
  } finally {
    await app.close();
    await prisma.$disconnect();
    await db.close();
  }
});

test('prismaOnSurety: findUnique from two transactions in the same tick each read their own transaction', {
  skip: needsPostgres,
}, async () => {
  const db = await createTestDatabase();
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table "${db.schema}".orders (id serial primary key, note text not null unique)`);
  const prisma = new PrismaClient({ adapter: prismaAdapterOnSurety({ schema: db.schema }) });
  try {
    // Both transactions insert a row of their own, then wait for each other, so that their
    // findUnique calls are made in the same tick: Prisma batches those into one query.
    let arrived = 0;
    let open!: () => void;
    const together = new Promise<void>((resolve) => {
      open = resolve;
    });
    const own = (note: string) =>
      db.sql.transaction(async (tx) => {
        await tx.query(`insert into "${db.schema}".orders (note) values ($1)`, [note]);
        if (++arrived === 2) open();
        await together;
        return prismaOnSurety(tx, prisma, async (p) => (await p.order.findUnique({ where: { note } }))?.note);
      });
    assert.deepEqual(await Promise.all([own('a'), own('b')]), ['a', 'b']);
  } finally {
    await prisma.$disconnect();
    await db.close();
  }
});
