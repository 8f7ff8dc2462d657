// pgErrorInfo reads one answer from the error shapes of every driver an application may use: a
// real unique violation from this suite's backend (PGlite, or PostgreSQL with DATABASE_URL), and
// the shapes postgres.js, Prisma and knex raise, written as those libraries build them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pgErrorInfo } from '../../src/error-info.js';
import { createTestDatabase, type TestDatabase } from '../../src/testing.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase({ max: 1 });
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table "${db.schema}".payments (id int primary key)`);
  await db.sql.query(`insert into "${db.schema}".payments values (1)`);
});
after(() => db.close());

const violation = {
  code: '23505',
  constraint: 'payments_pkey',
  table: 'payments',
  message: 'duplicate key value violates unique constraint "payments_pkey"',
};

test(`a real unique violation from this backend (node-postgres or PGlite)`, async () => {
  const error = await db.sql.query(`insert into "${db.schema}".payments values (1)`).catch((e: unknown) => e);
  assert.deepEqual(pgErrorInfo(error), { ...violation, schema: db.schema });
  // …also when a wrapper keeps it as its cause
  assert.deepEqual(pgErrorInfo(new Error('payment failed', { cause: error })), {
    ...violation,
    schema: db.schema,
  });
});

test('postgres.js (PostgresError: constraint_name, table_name, schema_name)', () => {
  const error = Object.assign(new Error(violation.message), {
    name: 'PostgresError',
    severity: 'ERROR',
    code: '23505',
    detail: 'Key (id)=(1) already exists.',
    schema_name: 'public',
    table_name: 'payments',
    constraint_name: 'payments_pkey',
  });
  assert.deepEqual(pgErrorInfo(error), { ...violation, schema: 'public' });
});

test("knex (node-postgres' error, the SQL prepended to its message)", () => {
  const message = `insert into "payments" ("id") values ($1) - ${violation.message}`;
  const error = Object.assign(new Error(message), {
    code: '23505',
    constraint: 'payments_pkey',
    table: 'payments',
  });
  assert.deepEqual(pgErrorInfo(error), { ...violation, message });
});

test("Prisma 7 with a driver adapter (P2002, the server's words in meta.driverAdapterError)", () => {
  const cause = {
    originalCode: '23505',
    originalMessage: violation.message,
    kind: 'UniqueConstraintViolation',
    constraint: { fields: ['id'] },
  };
  const adapterError = Object.assign(new Error(cause.kind), { name: 'DriverAdapterError', cause });
  const error = Object.assign(new Error('Unique constraint failed on the fields: (`id`)'), {
    name: 'PrismaClientKnownRequestError',
    code: 'P2002',
    clientVersion: '7.0.0',
    meta: { modelName: 'Payment', driverAdapterError: adapterError },
  });
  // No table in this shape; the constraint's name is read from the server's message.
  assert.deepEqual(pgErrorInfo(error), {
    code: '23505',
    constraint: 'payments_pkey',
    message: violation.message,
  });
});

test("Prisma's query engine: P2002 with an index name, and a raw query's P2010 with meta.code", () => {
  const p2002 = Object.assign(new Error('Unique constraint failed on the constraint: `payments_pkey`'), {
    code: 'P2002',
    clientVersion: '6.19.0',
    meta: { target: 'payments_pkey' },
  });
  assert.deepEqual(pgErrorInfo(p2002), {
    code: '23505',
    constraint: 'payments_pkey',
    message: 'Unique constraint failed on the constraint: `payments_pkey`',
  });
  const p2010 = Object.assign(new Error('Raw query failed.'), {
    code: 'P2010',
    clientVersion: '6.19.0',
    meta: { code: '23505', message: violation.message },
  });
  assert.deepEqual(pgErrorInfo(p2010), {
    code: '23505',
    constraint: 'payments_pkey',
    message: violation.message,
  });
});

test('not a database error: undefined', () => {
  assert.equal(pgErrorInfo(new Error('nope')), undefined);
  assert.equal(pgErrorInfo(Object.assign(new Error('socket'), { code: 'ECONNRESET' })), undefined);
  assert.equal(pgErrorInfo(undefined), undefined);
  assert.equal(pgErrorInfo('23505'), undefined);
  // a cycle of causes ends
  const a: { cause?: unknown } & Error = new Error('a');
  a.cause = a;
  assert.equal(pgErrorInfo(a), undefined);
});
