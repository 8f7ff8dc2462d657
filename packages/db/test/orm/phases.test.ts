// Phased operations (issue 32) with the ORM adapters: each local phase gets its `tx`, and Kysely's
// kyselyOf(tx) and Drizzle's drizzleOf(tx) write in that phase's transaction, on PGlite and (with
// DATABASE_URL) PostgreSQL. The provider charges and then fails: the retry resumes after the
// committed phase, repeats the call with the same derived key, and the ORM rows are written once;
// a throw inside a local phase rolls back what the ORM wrote in it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Tx } from '@surety/db';
import { drizzleOf } from '@surety/db/drizzle-pglite';
import { kyselyOf } from '@surety/db/kysely';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { createIdempotency, deriveKey, type Idempotency, phasedOperation } from '@surety/idempotency';
import { eq } from 'drizzle-orm';
import { integer, pgSchema, text } from 'drizzle-orm/pg-core';

let db: TestDatabase;
let engine: Idempotency;
before(async () => {
  db = await createTestDatabase();
  engine = createIdempotency({ sql: db.sql, schema: db.schema, ttlMs: 600_000 });
  await engine.migrate();
  await db.sql.query(
    `create table "${db.schema}".payments (id text primary key, cents int not null, status text not null, charge text)`,
  );
});
after(() => db.close());

interface Database {
  payments: { id: string; cents: number; status: string; charge: string | null };
}

/** The two ORMs' writes, behind the same three verbs. */
const orms: Record<
  string,
  {
    create(tx: Tx, id: string, cents: number): Promise<void>;
    record(tx: Tx, id: string, charge: string): Promise<void>;
  }
> = {
  kysely: {
    async create(tx, id, cents) {
      await kyselyOf<Database>(tx)
        .withSchema(db.schema)
        .insertInto('payments')
        .values({ id, cents, status: 'processing', charge: null })
        .execute();
    },
    async record(tx, id, charge) {
      await kyselyOf<Database>(tx)
        .withSchema(db.schema)
        .updateTable('payments')
        .set({ status: 'succeeded', charge })
        .where('id', '=', id)
        .execute();
    },
  },
  drizzle: {
    async create(tx, id, cents) {
      await drizzleOf(tx).insert(payments()).values({ id, cents, status: 'processing', charge: null });
    },
    async record(tx, id, charge) {
      const p = payments();
      await drizzleOf(tx).update(p).set({ status: 'succeeded', charge }).where(eq(p.id, id));
    },
  },
};
const payments = () =>
  pgSchema(db.schema).table('payments', {
    id: text('id').primaryKey(),
    cents: integer('cents').notNull(),
    status: text('status').notNull(),
    charge: text('charge'),
  });

const rows = async (id: string) =>
  (
    await db.sql.query<{ status: string; charge: string | null }>(
      `select status, charge from "${db.schema}".payments where id = $1`,
      [id],
    )
  ).rows;

for (const [name, orm] of Object.entries(orms)) {
  describe(`phases with ${name}`, () => {
    test('charged then failed: the retry resumes after the ORM phase, same derived key, rows written once', async () => {
      const charges = new Map<string, string>();
      let failNext = true;
      const op = phasedOperation(`orm.${name}.pay`, async (flow, input: { cents: number }) => {
        const id = `pay_${flow.key}`;
        await flow.local('created', (tx) => orm.create(tx, id, input.cents));
        const charge = await flow.external('charge', async (derived) => {
          if (!charges.has(derived)) charges.set(derived, `ch_${charges.size + 1}`);
          if (failNext) {
            failNext = false;
            throw new Error('connection reset after the charge');
          }
          return { id: charges.get(derived)! };
        });
        await flow.local('recorded', (tx) => orm.record(tx, id, charge.id));
        return { status: 201, headers: {}, body: JSON.stringify({ id, charge: charge.id }) };
      });
      const key = `${name}-resume`;
      const req = { tenant: 't', key, fingerprint: 'fp' };
      await assert.rejects(engine.phased(req, op, { cents: 500 }), /connection reset/);
      assert.deepEqual(
        await rows(`pay_${key}`),
        [{ status: 'processing', charge: null }],
        'the first phase committed',
      );
      const done = await engine.phased(req, op, { cents: 500 });
      assert.equal(done.kind, 'executed');
      assert.deepEqual(await rows(`pay_${key}`), [{ status: 'succeeded', charge: 'ch_1' }]);
      assert.deepEqual([...charges.keys()], [deriveKey(key, 'charge')], 'one charge, under the derived key');
      const again = await engine.phased(req, op, { cents: 500 });
      assert.equal(again.kind, 'replayed');
    });

    test('a throw inside a local phase rolls back what the ORM wrote in it', async () => {
      const op = phasedOperation(`orm.${name}.rollback`, async (flow) => {
        await flow.local('created', async (tx) => {
          await orm.create(tx, `pay_${flow.key}`, 1);
          throw new Error('refused after the insert');
        });
        return { status: 201, headers: {}, body: '{}' };
      });
      const key = `${name}-rollback`;
      await assert.rejects(engine.phased({ tenant: 't', key, fingerprint: 'fp' }, op, {}), /refused/);
      assert.deepEqual(await rows(`pay_${key}`), []);
    });
  });
}
