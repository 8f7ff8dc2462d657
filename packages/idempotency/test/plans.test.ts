import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, directOnly, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { Idempotency, phasedOperation } from '../src/index.js';
import { quotedKey } from '../src/key.js';

// The layer's statements are named, so PostgreSQL can plan each once per connection and reuse the
// plan. It reuses a generic plan only when it does not cost more than a plan for the parameters at
// hand: the claim's and the phased acquire's lock ids as an int8[] of unknown length made the
// generic plan assume ten index probes, so both were planned anew on every request (~240 µs of
// PostgreSQL's CPU per acquire in bench/idempotency). One connection, so that its
// pg_prepared_statements counts every execution; with statistics (ANALYZE), as in production.
// And a phase's record changes no indexed column, so that PostgreSQL can update the row in place
// (HOT) rather than add an entry to each of its three indexes.

let db: TestDatabase;
let engine: Idempotency;
const ROUNDS = 30;

before(async () => {
  if (needsPostgres || directOnly) return;
  db = await createTestDatabase({ max: 1 });
  engine = new Idempotency({ sql: db.sql, schema: db.schema });
  await engine.migrate();
});
after(() => db?.close());

const op = phasedOperation('plans.op', async (flow) => {
  await flow.local('created', async () => 1);
  const charge = await flow.external('charge', async (k) => k.slice(0, 8));
  await flow.local('settled', async () => charge);
  return { status: 201, headers: {}, body: charge };
});

test('the claim and the phased acquire keep one generic plan, with statistics', {
  skip: needsPostgres || directOnly,
}, async () => {
  const run = async (prefix: string) => {
    for (let i = 0; i < ROUNDS; i++) {
      const key = `${prefix}-${i}`;
      const request = { tenant: 't', key, fingerprint: 'fp', formerKeys: [quotedKey(key)] };
      await engine.execute(request, async () => ({ status: 201, headers: {}, body: 'ok' }));
      await engine.phased({ ...request, key: `${key}-p`, formerKeys: [quotedKey(`${key}-p`)] }, op, null);
    }
  };
  await run('before');
  // A table of some size: on a few dozen rows every plan costs about the same.
  await db.sql.query(
    `insert into "${db.schema}".idempotency_keys (tenant, key, lock_id, fingerprint, state, created_at, expires_at)
       select 'filler', 'k' || g, g, 'fp', 'completed', now(), now() + interval '1 day' from generate_series(1, 5000) g`,
  );
  await db.sql.query(`analyze "${db.schema}".idempotency_keys`);
  await run('after');
  const { rows } = await db.sql.query<{ name: string; generic: number; custom: number }>(
    `select name, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements
        where name like 'surety_idem_%'`,
  );
  const plans = Object.fromEntries(rows.map((r) => [r.name.replace(/^surety_idem_/, '').split('_t_')[0], r]));
  for (const name of ['claim', 'phase_acquire', 'phase_record_commit', 'lease_complete', 'complete']) {
    const p = plans[name];
    assert.ok(p, `${name} ran: ${Object.keys(plans).join(', ')}`);
    // PostgreSQL plans the first five executions for their parameters, and again after ANALYZE.
    assert.ok(p.custom <= 10, `${name}: ${p.custom} custom plans in ${p.custom + p.generic} executions`);
  }
});

test("a phase's record is a HOT update: it changes no indexed column (the lease is the renewer's)", {
  skip: needsPostgres || directOnly,
}, async () => {
  const hot = async () => {
    // This connection's counts reach the shared statistics at its next transaction's end.
    await db.sql.query('select pg_stat_force_next_flush()');
    const { rows } = await db.sql.query<{ upd: number; hot: number }>(
      `select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_user_tables
          where schemaname = $1 and relname = 'idempotency_keys'`,
      [db.schema],
    );
    return rows[0]!;
  };
  const before = await hot();
  const N = 40;
  for (let i = 0; i < N; i++)
    await engine.phased({ tenant: 't', key: `hot-${i}`, fingerprint: 'fp' }, op, null);
  const after = await hot();
  // Per operation: two records (HOT when the row's page has room) and the answer (not HOT: it
  // changes the state and the lease, both indexed).
  assert.equal(after.upd - before.upd, 3 * N);
  assert.ok(after.hot - before.hot >= 1.5 * N, `${after.hot - before.hot} HOT updates of ${2 * N} records`);
});
