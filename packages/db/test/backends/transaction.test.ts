// The transaction round-trip fusions (`first` with BEGIN, `atCommit` with COMMIT) and `literal`, on
// PGlite and, with DATABASE_URL, on PostgreSQL: the same results as separate statements, and a
// failure anywhere commits nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { literal } from '../../src/literal.js';
import { createPgSql } from '../../src/pg.js';
import {
  createTestDatabase,
  directOnly,
  needsPostgres,
  poolerOptions,
  postgresUrl,
  type TestDatabase,
} from '../../src/testing.js';

let db: TestDatabase;
let t: string;
before(async () => {
  db = await createTestDatabase({ max: 1 });
  t = `"${db.schema}".items`;
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table ${t} (id int primary key, note text)`);
});
after(() => db.close());

const notes = async () =>
  (await db.sql.query<{ id: number; note: string }>(`select id, note from ${t} order by id`)).rows;

describe('transaction: first', () => {
  test('text without parameters travels with BEGIN; its result reaches the callback', async () => {
    const got = await db.sql.transaction(async (_tx, first) => first?.rows, { first: 'select 41 + 1 as n' });
    assert.deepEqual(got, [{ n: 42 }]);
  });

  test('a named statement with parameters travels with BEGIN, many times on one connection', async () => {
    const statement = { name: `first_named_${db.schema}`, text: 'select $1::int * 2 as n, $2::text as s' };
    for (let i = 0; i < 5; i++) {
      const got = await db.sql.transaction(
        async (tx, first) => {
          // the transaction is open: a statement here sees the same snapshot and commits with it
          await tx.query(`insert into ${t} values ($1, $2)`, [100 + i, `n${i}`]);
          return first?.rows;
        },
        { first: { statement, params: [i, `it's ${i}`] } },
      );
      assert.deepEqual(got, [{ n: i * 2, s: `it's ${i}` }]);
    }
    assert.equal((await notes()).filter((r) => r.id >= 100).length, 5);
  });

  test('BEGIN really opened the transaction: a throw rolls back what the callback wrote', async () => {
    const statement = { name: `first_rollback_${db.schema}`, text: 'select $1::int as n' };
    await assert.rejects(
      db.sql.transaction(
        async (tx) => {
          await tx.query(`insert into ${t} values (1, 'never')`);
          throw new Error('boom');
        },
        { first: { statement, params: [1] } },
      ),
      /boom/,
    );
    assert.equal(
      (await notes()).find((r) => r.id === 1),
      undefined,
    );
  });

  test('a named first statement that fails to parse is parsed again next time', async () => {
    const statement = {
      name: `first_late_${db.schema}`,
      text: `select count(*)::int as n from "${db.schema}".late`,
    };
    await assert.rejects(
      db.sql.transaction(async () => 'unreachable', { first: { statement, params: [] } }),
      /late/,
    );
    await db.sql.query(`create table "${db.schema}".late (x int)`);
    const got = await db.sql.transaction(async (_tx, first) => first?.rows, {
      first: { statement, params: [] },
    });
    assert.deepEqual(got, [{ n: 0 }]);
  });
});

describe('transaction: first, with statements before it', () => {
  test('they run first, in order, in the same transaction; the callback gets the last result', async () => {
    const set = {
      name: `before_set_${db.schema}`,
      text: "select set_config('surety.test_before', $1, true)",
    };
    const got = await db.sql.transaction(async (_tx, first) => first?.rows, {
      first: {
        before: [
          { statement: set, params: ['one'] },
          {
            statement: {
              text: "select set_config('surety.test_before', current_setting('surety.test_before') || $1, true)",
            },
            params: [' two'],
          },
        ],
        statement: {
          name: `before_read_${db.schema}`,
          text: "select current_setting('surety.test_before') as v, $1::int as n",
        },
        params: [7],
      },
    });
    assert.deepEqual(got, [{ v: 'one two', n: 7 }]);
    // transaction-local: gone after COMMIT
    const after = await db.sql.query<{ v: string | null }>(
      "select current_setting('surety.test_before', true) as v",
    );
    assert.ok(after.rows[0]!.v === null || after.rows[0]!.v === '', JSON.stringify(after.rows));
  });

  test('a failing statement before it: the transaction fails, nothing commits', async () => {
    await assert.rejects(
      db.sql.transaction(
        async (tx) => {
          await tx.query(`insert into ${t} values (20, 'never')`);
        },
        {
          first: {
            before: [{ statement: { text: 'select 1 / $1::int' }, params: [0] }],
            statement: { text: 'select $1::int as n' },
            params: [1],
          },
        },
      ),
      /division by zero/,
    );
    assert.equal(
      (await notes()).find((r) => r.id === 20),
      undefined,
    );
  });

  test('named statements before it are prepared once per connection, and a failed one is parsed again', {
    skip: needsPostgres || directOnly,
  }, async () => {
    // max 1: every transaction here runs on the same connection.
    const one = createPgSql({ connectionString: postgresUrl!, max: 1 });
    try {
      const divide = { name: `before_divide_${db.schema}`, text: 'select 10 / $1::int as q' };
      const bad = { name: `before_bad_${db.schema}`, text: 'select no_such_column' };
      const read = { name: `before_then_${db.schema}`, text: 'select $1::int as n' };
      const prepared = async () =>
        (
          await one.transaction(async (tx) =>
            tx.query<{ name: string }>('select name from pg_prepared_statements order by name'),
          )
        ).rows.map((r) => r.name);
      const run = (before: { name: string; text: string }, divisor: number) =>
        one.transaction(async (_tx, first) => first?.rows, {
          first: { before: [{ statement: before, params: [divisor] }], statement: read, params: [divisor] },
        });
      for (let i = 1; i <= 3; i++) assert.deepEqual(await run(divide, i), [{ n: i }]);
      assert.ok((await prepared()).includes(divide.name), 'prepared, not sent unnamed');
      // Its execution fails after its Parse succeeded: the connection still holds it, so the next
      // use must not Parse it again (that would fail: prepared statement already exists).
      await assert.rejects(run(divide, 0), /division by zero/);
      assert.deepEqual(await run(divide, 5), [{ n: 5 }]);
      // Its Parse fails: the statement after it was not parsed either; both are parsed next time.
      await assert.rejects(run(bad, 1), /no_such_column/);
      assert.ok(!(await prepared()).includes(bad.name));
      assert.deepEqual(await run(divide, 2), [{ n: 2 }]);
    } finally {
      await one.close();
    }
  });

  test('a named first statement whose execution failed is used again on the same connection', {
    skip: needsPostgres || directOnly,
  }, async () => {
    const one = createPgSql({ connectionString: postgresUrl!, max: 1 });
    try {
      const divide = { name: `first_divide_${db.schema}`, text: 'select 10 / $1::int as q' };
      const run = (divisor: number) =>
        one.transaction(async (_tx, first) => first?.rows, {
          first: { statement: divide, params: [divisor] },
        });
      await assert.rejects(run(0), /division by zero/);
      assert.deepEqual(await run(5), [{ q: 2 }]);
    } finally {
      await one.close();
    }
  });

  test("the first statement's snapshot holds what committed while a statement before it waited for a lock", {
    skip: needsPostgres,
  }, async () => {
    // The holder takes the advisory lock, writes a row, and commits a moment later. The transaction
    // under test waits for the lock in a statement before `first`; `first` then sees the row. In
    // one statement (lock and read together) the read's snapshot predates the commit: it would not.
    const holder = createPgSql({ connectionString: postgresUrl!, max: 1 });
    try {
      const lock = 424242;
      let release!: () => void;
      const locked = new Promise<void>((r) => {
        release = r;
      });
      const holding = holder.transaction(async (tx) => {
        await tx.query('select pg_advisory_xact_lock($1)', [lock]);
        await tx.query(`insert into ${t} values (130, 'committed by the holder')`);
        release();
        await new Promise((r) => setTimeout(r, 300));
      });
      await locked;
      const seen = await db.sql.transaction(async (_tx, first) => first?.rows[0], {
        first: {
          before: [{ statement: { text: 'select pg_advisory_xact_lock($1)' }, params: [lock] }],
          statement: { text: `select count(*)::int as n from ${t} where id = $1` },
          params: [130],
        },
      });
      await holding;
      assert.deepEqual(seen, { n: 1 });
    } finally {
      await holder.close();
    }
  });
});

describe('transaction: atCommit', () => {
  test('the statement commits with the transaction', async () => {
    await db.sql.transaction(async (tx) => {
      await tx.query(`insert into ${t} values (10, 'body')`);
      tx.atCommit(`insert into ${t} values (11, ${literal('at commit')})`);
    });
    assert.deepEqual(
      (await notes()).filter((r) => r.id === 10 || r.id === 11),
      [
        { id: 10, note: 'body' },
        { id: 11, note: 'at commit' },
      ],
    );
  });

  test('if it fails nothing commits, and the transaction rejects with its error', async () => {
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await tx.query(`insert into ${t} values (20, 'body')`);
        tx.atCommit(`insert into ${t} values (10, 'duplicate key')`);
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    assert.equal(
      (await notes()).find((r) => r.id === 20),
      undefined,
    );
    // and the connection is usable afterwards (the failed transaction was rolled back)
    assert.deepEqual((await db.sql.query<{ n: number }>('select 1 as n')).rows, [{ n: 1 }]);
  });

  test('a named statement with parameters commits with the transaction, many times on one connection', async () => {
    const insert = {
      name: `at_commit_insert_${db.schema}`,
      text: `insert into ${t} (id, note) values ($1, $2)`,
    };
    for (let i = 0; i < 4; i++) {
      await db.sql.transaction(async (tx) => {
        await tx.query(`insert into ${t} values ($1, 'body')`, [300 + i]);
        tx.atCommit({ statement: insert, params: [310 + i, `it's ${i}`] });
      });
    }
    const rows = (await notes()).filter((r) => r.id >= 300 && r.id < 320);
    assert.deepEqual(
      rows.map((r) => r.id),
      [300, 301, 302, 303, 310, 311, 312, 313],
    );
    assert.equal(rows.find((r) => r.id === 312)?.note, "it's 2");
    // A failure of it: nothing commits, the error is its own, and the statement is used again on the
    // same connection (its Parse succeeded: it must not be parsed a second time).
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await tx.query(`insert into ${t} values (320, 'body')`);
        tx.atCommit({ statement: insert, params: [310, 'duplicate key'] });
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    assert.equal(
      (await notes()).find((r) => r.id === 320),
      undefined,
    );
    await db.sql.transaction(async (tx) => tx.atCommit({ statement: insert, params: [321, 'after'] }));
    assert.equal((await notes()).find((r) => r.id === 321)?.note, 'after');
  });

  test('one statement per transaction', async () => {
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        tx.atCommit('select 1');
        tx.atCommit('select 2');
      }),
      /one statement per transaction/,
    );
  });
});

describe('transaction: afterCommit', () => {
  test('callbacks run once COMMIT succeeded, in order; never after a rollback; one that throws is ignored', async () => {
    const ran: string[] = [];
    const result = await db.sql.transaction(async (tx) => {
      await tx.query(`insert into ${t} values (30, 'x')`);
      tx.afterCommit(() => {
        ran.push('first');
        throw new Error('ignored');
      });
      tx.afterCommit(() => ran.push('second'));
      assert.deepEqual(ran, [], 'not before COMMIT');
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(ran, ['first', 'second']);
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        tx.afterCommit(() => ran.push('rolled back'));
        throw new Error('boom');
      }),
      /boom/,
    );
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        tx.afterCommit(() => ran.push('failed commit'));
        tx.atCommit(`insert into ${t} values (30, 'duplicate')`);
      }),
    );
    assert.deepEqual(ran, ['first', 'second']);
  });
});

describe('notify', () => {
  test('reaches a listener, outside any transaction, while every pool connection is busy', async () => {
    const heard: string[] = [];
    const channel = `ch_${db.schema}`;
    const unlisten = await db.sql.listen(channel, (payload) => heard.push(payload));
    try {
      if (db.backend === 'pg') {
        // The pool (max 1 here) is held by an open transaction: the NOTIFY must not wait for it.
        // Wait until the transaction holds it: the NOTIFY raced the BEGIN (seen through PgBouncer),
        // and a release() not yet assigned left the transaction open for every later test.
        let release!: () => void;
        let began!: () => void;
        const holding = new Promise<void>((r) => (began = r));
        const held = db.sql.transaction(
          () =>
            new Promise<void>((r) => {
              release = r;
              began();
            }),
        );
        await holding;
        await db.sql.notify(channel, 'while busy');
        release();
        await held;
      } else {
        await db.sql.notify(channel, 'while busy');
      }
      const deadline = Date.now() + 5000;
      while (heard.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.deepEqual(heard, ['while busy']);
    } finally {
      await unlisten();
    }
  });
});

describe('notify after close', () => {
  test('rejects and opens no connection (a pending wake-up cannot keep the process alive)', async (t) => {
    if (!postgresUrl) {
      t.skip('the dedicated NOTIFY connection exists on PostgreSQL only: set DATABASE_URL');
      return;
    }
    // Straight to the server even in the pass through PgBouncer: the pooler keeps its server
    // connection (and the application_name it last carried) after the client closes, so there
    // pg_stat_activity cannot tell whether close() closed anything (CI saw 1 !== 0).
    const own = createPgSql({
      connectionString: poolerOptions.listenUrl ?? postgresUrl,
      max: 1,
      applicationName: `notify-close-${db.schema}`,
    });
    await own.notify(`ch_${db.schema}`); // opens the NOTIFY connection
    await own.close();
    await assert.rejects(own.notify(`ch_${db.schema}`), /after close/);
    const { rows } = await db.sql.query<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity where application_name like $1',
      [`notify-close-${db.schema}%`],
    );
    assert.equal(rows[0]!.n, 0);
  });
});

describe('literal', () => {
  test('strings come back byte for byte', async () => {
    const values = [
      "it's",
      'back\\slash',
      "\\' or 1=1; --",
      "E'x'",
      '$$ dollar $$',
      'unicode é ✓ 🚀',
      '',
      'line\nbreak\ttab',
    ];
    for (const v of values) {
      const { rows } = await db.sql.query<{ v: string }>(`select ${literal(v)}::text as v`);
      assert.equal(rows[0]!.v, v);
    }
  });

  test('numbers, booleans and null; NUL and non-finite numbers are refused', () => {
    assert.equal(literal(42), '42');
    assert.equal(literal(-1.5), '-1.5');
    assert.equal(literal(true), 'true');
    assert.equal(literal(null), 'null');
    assert.throws(() => literal('a\0b'), /NUL/);
    assert.throws(() => literal(Number.NaN), /finite/);
  });
});

describe('node-postgres pipelines: the connection after a failure', {
  skip: needsPostgres || directOnly,
}, () => {
  test('a statement the client timed out (query_timeout): the Parses the server answered late are counted', async () => {
    // max 1: every transaction here runs on the same connection.
    const pool = new pg.Pool({ connectionString: postgresUrl!, max: 1, query_timeout: 500 });
    const one = createPgSql({ pool });
    try {
      const slow = { name: `late_sleep_${db.schema}`, text: 'select pg_sleep($1::float8)' };
      const read = { name: `late_read_${db.schema}`, text: 'select $1::int as n' };
      const run = (seconds: number) =>
        one.transaction(async (_tx, first) => first?.rows, {
          first: { before: [{ statement: slow, params: [seconds] }], statement: read, params: [7] },
        });
      // The client gives up at 500 ms; the server answers at 750 ms (ParseCompletes included), before
      // the ROLLBACK queued behind it times out in turn: the connection goes back to the pool.
      await assert.rejects(run(0.75), /timeout/i);
      await new Promise((resolve) => setTimeout(resolve, 800));
      // Both statements exist on the connection: parsed again, they would fail (42P05).
      assert.deepEqual(await run(0), [{ n: 7 }]);
      assert.deepEqual(await run(0), [{ n: 7 }]);
    } finally {
      await one.close();
      await pool.end();
    }
  });

  test('a name the connection holds for another text is refused, not bound to that text', async () => {
    const one = createPgSql({ connectionString: postgresUrl!, max: 1 });
    try {
      const name = `reused_${db.schema}`;
      assert.deepEqual((await one.query({ name, text: 'select $1::int as n' }, [1])).rows, [{ n: 1 }]);
      await assert.rejects(
        one.transaction(async (_tx, first) => first?.rows, {
          first: { statement: { name, text: 'select $1::int + 100 as n' }, params: [1] },
        }),
        /Prepared statements must be unique/,
      );
      await assert.rejects(
        one.transaction(async (tx) =>
          tx.atCommit({ statement: { name, text: 'select $1::int - 1 as n' }, params: [1] }),
        ),
        /Prepared statements must be unique/,
      );
      // Two texts under one name in one pipeline.
      const twice = `reused_twice_${db.schema}`;
      await assert.rejects(
        one.transaction(async (_tx, first) => first?.rows, {
          first: {
            before: [{ statement: { name: twice, text: 'select $1::int as a' }, params: [1] }],
            statement: { name: twice, text: 'select $1::int * 10 as a' },
            params: [2],
          },
        }),
        /Prepared statements must be unique/,
      );
      // The connection is still fine, and the name still means its first text.
      assert.deepEqual((await one.query({ name, text: 'select $1::int as n' }, [3])).rows, [{ n: 3 }]);
    } finally {
      await one.close();
    }
  });

  test('a value that cannot be sent fails the transaction at once, and the connection is usable', async () => {
    const applicationName = `surety-test-unmappable-${db.schema}`;
    const one = createPgSql({ connectionString: postgresUrl!, max: 1, applicationName });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const soon = <T>(promise: Promise<T>) =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('still waiting after 2 s')), 2000),
        ),
      ]);
    try {
      await assert.rejects(
        soon(
          one.transaction(async (tx) => {
            await tx.query(`insert into ${t} values (400, 'body')`);
            tx.atCommit({
              statement: { name: `unmappable_${db.schema}`, text: 'select $1::jsonb' },
              params: [circular],
            });
          }),
        ),
        /circular/i,
      );
      await assert.rejects(
        soon(
          one.transaction(async (_tx, first) => first?.rows, {
            first: {
              before: [{ statement: { text: 'select $1::int' }, params: [1] }],
              statement: { text: 'select $1::jsonb as j' },
              params: [circular],
            },
          }),
        ),
        /circular/i,
      );
      assert.deepEqual((await soon(one.query<{ n: number }>('select 1 as n'))).rows, [{ n: 1 }]);
      assert.equal(
        (await notes()).find((r) => r.id === 400),
        undefined,
      );
    } finally {
      // A connection left waiting for the rest of its messages never ends by itself.
      await db.sql.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
        [applicationName],
      );
      await one.close();
    }
  });
});
