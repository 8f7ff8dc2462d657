// The webhooks' prepared statements are named per schema, and PostgreSQL keeps only the first 63
// bytes of a name: two long schemas that share a prefix must still get names of their own, or the
// second engine on the same connection is refused ("Prepared statements must be unique").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { parseAllowList, Webhooks } from '../src/index.js';
import { claimStatements, releaseSlots } from '../src/sql/claim.js';
import { names } from '../src/sql/schema.js';

// Names as the package builds them (sql/schema.ts, `st`), for a few of its statements.
const statementNames = (schema: string) =>
  ['claim', 'publish', 'list_endpoints', 'complete_attempts'].map(
    (n) => names(schema).st(n, 'select 1').name!,
  );

test('statement names are unique across schemas that share a 63-byte prefix, and fit in 63 bytes', () => {
  const prefix = `tenant_${'x'.repeat(50)}`;
  const a = statementNames(`${prefix}_one`);
  const b = statementNames(`${prefix}_two`);
  assert.ok(a.length > 0);
  for (const name of [...a, ...b]) assert.ok(Buffer.byteLength(name) <= 63, name);
  assert.equal(new Set([...a, ...b]).size, a.length + b.length, 'two statements share a name');
});

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase({ max: 1 });
});
after(() => db.close());

test('two engines with long schemas sharing a prefix work on one connection', async () => {
  const engines = ['a', 'b'].map(
    (s) =>
      new Webhooks({
        sql: db.sql,
        schema: `${db.schema}_${'p'.repeat(40)}_${s}`,
        allowHttp: true,
        allowList: parseAllowList('127.0.0.1/32'),
      }),
  );
  try {
    for (const engine of engines) await engine.migrate();
    for (const engine of engines) {
      await engine.createEndpoint(db.sql, { tenant: 't', url: 'http://127.0.0.1:1/hook', eventTypes: ['*'] });
      const page = await engine.listEndpoints(db.sql, { tenant: 't' });
      assert.equal(page.data.length, 1);
      // A named statement of each schema on the one connection.
      await releaseSlots(db.sql, claimStatements(names(engine.schema)), { workerId: 'w' });
    }
  } finally {
    for (const engine of engines) await db.sql.query(`drop schema if exists "${engine.schema}" cascade`);
  }
});
