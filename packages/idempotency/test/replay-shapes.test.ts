// Every stored shape replays exactly through the claim's JSON array (body_gzip in base64): empty,
// unicode and gzip-compressed bodies, odd header values; on the test backend, and on postgres.js
// when DATABASE_URL is set (its json parsing, not node-postgres').
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Sql } from '@surety/db';
import { postgresSql } from '@surety/db/postgres-js';
import { createTestDatabase, directOnly, postgresUrl, type TestDatabase } from '@surety/db/testing';
import postgres from 'postgres';
import { Idempotency, type StoredResponse } from '../src/index.js';

let db: TestDatabase;
let pgjs: postgres.Sql | undefined;
before(async () => {
  db = await createTestDatabase();
  await new Idempotency({ sql: db.sql, schema: db.schema }).migrate();
  if (postgresUrl) pgjs = postgres(postgresUrl, { max: 2, onnotice: () => {} });
});
after(async () => {
  await pgjs?.end();
  await db?.close();
});

const big = (s: string) => Array.from({ length: 400 }, (_, i) => `${s}${i}`).join(',');
const shapes: Record<string, StoredResponse> = {
  empty: { status: 204, headers: {}, body: '' },
  unicode: { status: 200, headers: { 'x-n': 'é ü € 😀' }, body: '"€ \u2028 \u2029 😀 \\ \\u0041 \t\r\n"' },
  gzip: { status: 201, headers: { 'content-type': 'application/json' }, body: `[${big('"ü😀\\"x')}]` },
  gzipAscii: { status: 201, headers: {}, body: big('a') },
  oddHeaders: {
    status: 200,
    headers: {
      'x-empty': '',
      'x-quote': '"\'\\',
      'x-json': '{"a":1}',
      'x-spaces': '  a  b  ',
      'x-num': '007',
    },
    body: 'null',
  },
};

async function roundTrip(sql: Sql, label: string) {
  const engine = new Idempotency({ sql, schema: db.schema, compressAboveBytes: 256 });
  for (const [name, response] of Object.entries(shapes)) {
    const req = { tenant: 't', key: `${label}-${name}`, fingerprint: 'fp' };
    const first = await engine.execute(req, async () => response);
    assert.equal(first.kind, 'executed', name);
    const again = await engine.execute(req, async () => assert.fail('must not run again'));
    assert.deepEqual(again, { kind: 'replayed', response }, `${label} ${name}`);
  }
  const { rows } = await db.sql.query<{ n: number }>(
    `select count(*)::int as n from "${db.schema}".idempotency_keys where key like $1 and body_encoding = 'gzip'`,
    [`${label}-%`],
  );
  assert.equal(rows[0]!.n, 2, 'two bodies stored compressed');
}

test('every stored shape replays exactly (the test backend)', () => roundTrip(db.sql, 'default'));

test(
  'every stored shape replays exactly (postgres.js)',
  { skip: (!postgresUrl && 'needs DATABASE_URL') || directOnly },
  () => roundTrip(postgresSql(pgjs!), 'pgjs'),
);
