// The store's prepared statements are named per schema, and PostgreSQL keeps only the first 63 bytes
// of a name (NAMEDATALEN): two long schemas that share a prefix must still get names of their own,
// or the second engine on the same connection is refused ("Prepared statements must be unique").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { Idempotency } from '../src/index.js';
import { statements } from '../src/statements.js';

const names = (schema: string) =>
  Object.values(statements(schema))
    .flatMap((s) =>
      typeof s === 'function' ? [s(values, false), s(values, true)].map((p) => p.statement) : [s],
    )
    .map((s) => s.name)
    .filter((name): name is string => name !== undefined);
const values = {
  tenant: 't',
  key: 'k',
  fingerprint: 'f',
  status: 201,
  headers: '{}',
  body: '',
  bodyGzip: null,
  bodyEncoding: null,
  createdAt: new Date(0).toISOString(),
  expiresAt: new Date(1).toISOString(),
  lockId: '1',
};
// Schema names are at most 63 characters of [a-z0-9_] (quoteSchema).
const prefix = `tenant_${'x'.repeat(50)}`;

test('statement names are unique across schemas that share a 63-byte prefix, and fit in 63 bytes', () => {
  const schemas = [`${prefix}_one`, `${prefix}_two`, 'surety', 'x'.repeat(63)];
  const all = schemas.flatMap(names);
  for (const name of all) assert.ok(Buffer.byteLength(name) <= 63, `${name} is longer than 63 bytes`);
  assert.equal(new Set(all).size, all.length, 'two statements share a name');
  // A short schema keeps the readable name it had.
  assert.ok(names('surety').includes('surety_idem_claim_surety'));
});

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase({ max: 1 });
});
after(() => db.close());

test('two engines with long schemas sharing a prefix work on one connection', async () => {
  const engines = ['a', 'b'].map(
    (s) => new Idempotency({ sql: db.sql, schema: `${db.schema}_${'p'.repeat(40)}_${s}`, ttlMs: 60_000 }),
  );
  try {
    for (const engine of engines) await engine.migrate();
    for (const [i, engine] of engines.entries()) {
      const outcome = await engine.execute({ tenant: 't', key: 'k', fingerprint: `f${i}` }, async () => ({
        status: 201,
        headers: {},
        body: String(i),
      }));
      assert.equal(outcome.kind, 'executed');
    }
  } finally {
    for (const engine of engines) await db.sql.query(`drop schema if exists "${engine.schema}" cascade`);
  }
});
