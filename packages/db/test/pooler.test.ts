// @surety/db behind a real transaction-mode PgBouncer (Debian's 1.18, no prepared-statement
// tracking): `pooler: 'transaction'` runs pipelined, "named" transactions on any server connection;
// without it the failure is a PoolerMisconfiguredError naming the setting (503), never 26000/42P05;
// the pooler is detected at open; LISTEN goes to the direct URL or is refused with the reason.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pgbouncerMissing, type RunningPgBouncer, startPgBouncer } from '../../../scripts/pgbouncer.mjs';
import {
  createPgSql,
  detectTransactionPooler,
  isDatabaseUnavailableError,
  isPoolerMisconfiguredError,
  openSql,
  type Sql,
} from '../src/index.js';
import { needsPostgres, postgresUrl } from '../src/testing.js';

const direct = process.env.SURETY_DATABASE_DIRECT_URL || postgresUrl;
let bouncer: RunningPgBouncer;
const opened: Sql[] = [];
const open = (options: Parameters<typeof createPgSql>[0]) => {
  const sql = createPgSql({ connectionTimeoutMillis: 30_000, ...options });
  opened.push(sql);
  return sql;
};

// One transaction as the idempotency layer sends it: a named statement pipelined with BEGIN, one
// inside, one with COMMIT.
async function keyedTransaction(sql: Sql, i: number): Promise<number> {
  return sql.transaction(
    async (tx, first) => {
      const inside = await tx.query<{ n: number }>(
        { name: 'pooler_inside', text: 'select $1::int + 1 as n' },
        [i],
      );
      tx.atCommit({ statement: { name: 'pooler_commit', text: 'select $1::int as n' }, params: [i] });
      return Number((first!.rows[0] as { n: number }).n) + inside.rows[0]!.n;
    },
    { first: { statement: { name: 'pooler_first', text: 'select $1::int as n' }, params: [i] } },
  );
}

describe('behind PgBouncer in transaction mode', { skip: needsPostgres || pgbouncerMissing() }, () => {
  before(async () => {
    bouncer = await startPgBouncer({ databaseUrl: direct! });
  });
  after(async () => {
    await Promise.all(opened.map((s) => s.close().catch(() => {})));
    await bouncer?.stop();
  });

  test("pooler: 'transaction': 200 pipelined transactions with named statements on 6 clients, all committed", async () => {
    const sql = open({ connectionString: bouncer.url, max: 6, pooler: 'transaction' });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => keyedTransaction(sql, i)));
    assert.deepEqual(
      results,
      Array.from({ length: 200 }, (_, i) => 2 * i + 1),
    );
    // And plain queries, named or not, outside transactions.
    for (let i = 0; i < 20; i++) {
      const r = await sql.query<{ n: number }>({ name: 'pooler_plain', text: 'select $1::int as n' }, [i]);
      assert.equal(r.rows[0]!.n, i);
    }
  });

  test('left unconfigured, named statements fail as PoolerMisconfiguredError (a 503), not 26000 / 42P05', async () => {
    const sql = open({ connectionString: bouncer.url, max: 1 });
    const holder = open({ connectionString: bouncer.url, max: 1, pooler: 'transaction' });
    assert.equal(await keyedTransaction(sql, 1), 3, 'the first transaction prepares its statements');
    // Another client's open transaction takes that server connection (the pooler reuses the one
    // freed last): the next transaction runs on a server that never parsed them.
    const failures: unknown[] = [];
    await holder.transaction(async (tx) => {
      await tx.query('select pg_backend_pid()');
      for (let i = 0; i < 3; i++) await keyedTransaction(sql, i).catch((e: unknown) => failures.push(e));
    });
    assert.ok(failures.length > 0, 'a transaction moved to a server connection without the statement');
    for (const error of failures as Error[]) {
      assert.ok(isPoolerMisconfiguredError(error), `${error}`);
      assert.ok(isDatabaseUnavailableError(error), 'answered as unavailable (503)');
      assert.equal((error as { code?: string }).code, 'SURETY_DB_POOLER_MISCONFIGURED');
      assert.match(error.message, /SURETY_DATABASE_POOLER=transaction/);
    }
  });

  test('detectTransactionPooler: true through the pooler, false on the direct URL', async () => {
    assert.equal(await detectTransactionPooler({ connectionString: bouncer.url }), true);
    assert.equal(await detectTransactionPooler({ connectionString: direct! }), false);
  });

  test('openSql refuses a transaction pooler it was not told about, naming the setting', async () => {
    await assert.rejects(openSql({ databaseUrl: bouncer.url }), (error: Error) => {
      assert.ok(isPoolerMisconfiguredError(error));
      assert.match(error.message, /SURETY_DATABASE_POOLER=transaction/);
      return true;
    });
    const sql = await openSql({ databaseUrl: bouncer.url, pooler: 'transaction' });
    opened.push(sql);
    assert.equal((await sql.query<{ n: number }>('select 1 as n')).rows[0]!.n, 1);
  });

  test('LISTEN: refused without listenUrl (with the reason); on listenUrl, NOTIFY through the pooler arrives', async () => {
    const pooled = open({ connectionString: bouncer.url, pooler: 'transaction' });
    await assert.rejects(
      pooled.listen('surety_pooler_test', () => {}),
      /listenUrl/,
    );
    const sql = open({ connectionString: bouncer.url, pooler: 'transaction', listenUrl: direct! });
    const heard: string[] = [];
    const stop = await sql.listen('surety_pooler_test', (p) => heard.push(p));
    try {
      for (let i = 0; i < 5; i++) await sql.notify('surety_pooler_test', `n${i}`);
      const deadline = Date.now() + 5000;
      while (heard.length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(heard, ['n0', 'n1', 'n2', 'n3', 'n4']);
    } finally {
      await stop();
    }
  });

  test('a pooler mode that is not one is refused', () => {
    assert.throws(
      () => createPgSql({ pooler: 'session' as 'none' }),
      /pooler must be "none" or "transaction"/,
    );
  });
});
