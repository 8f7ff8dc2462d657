import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createPgSql, type Sql } from '@surety/db';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import {
  Idempotency,
  type IdempotencyWarning,
  LeaseLostError,
  type StoredResponse,
  StoreUnavailableError,
} from '../src/index.js';

let db: TestDatabase;
let clock = Date.parse('2026-01-01T00:00:00Z');
let engine: Idempotency;
let n = 0;
const key = () => `key-${++n}`;
const ok = (body: string, status = 201): StoredResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body,
});

before(async () => {
  db = await createTestDatabase();
  engine = new Idempotency({
    sql: db.sql,
    schema: db.schema,
    ttlMs: 60_000,
    leaseMs: 5_000,
    now: () => clock,
  });
  await engine.migrate();
  await db.sql.query(`create table "${db.schema}".effects (k text not null)`);
});
after(() => db.close());

const effects = async (k: string) =>
  Number(
    (
      await db.sql.query<{ n: string }>(
        `select count(*)::text as n from "${db.schema}".effects where k = $1`,
        [k],
      )
    ).rows[0]!.n,
  );
const keyRow = async (k: string) =>
  (await db.sql.query(`select * from "${db.schema}".idempotency_keys where tenant = 't' and key = $1`, [k]))
    .rows[0];

const effect =
  (k: string, response: StoredResponse) =>
  async (tx: Parameters<Parameters<Idempotency['execute']>[1]>[0]) => {
    await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
    return response;
  };

describe('formerKeys: a row stored under an earlier form of the key (issue 20)', () => {
  test('atomic and lease mode find it, replay it and refuse another request under it; never write it', async () => {
    const k = key();
    const quoted = `"${k}"`;
    await engine.execute({ tenant: 't', key: quoted, fingerprint: 'fp' }, effect(k, ok('{"old":1}')));
    const req = { tenant: 't', key: k, fingerprint: 'fp', formerKeys: [quoted] };
    assert.deepEqual(await engine.execute(req, effect(k, ok('{}'))), {
      kind: 'replayed',
      response: ok('{"old":1}'),
    });
    assert.deepEqual(await engine.execute({ ...req, fingerprint: 'other' }, effect(k, ok('{}'))), {
      kind: 'mismatch',
    });
    const leased = await engine.acquire(req);
    assert.deepEqual(leased, { kind: 'replayed', response: ok('{"old":1}') });
    assert.equal(await effects(k), 1);
    assert.equal(await keyRow(k), undefined, 'nothing stored under the new form');
    // Expired: the key is a new operation, stored under the new form; the old row is left to the purge.
    clock += 60_001;
    const fresh = await engine.execute(req, effect(k, ok('{"new":1}')));
    assert.equal(fresh.kind, 'executed');
    assert.equal((await keyRow(k))?.state, 'completed');
    assert.deepEqual(await engine.execute(req, effect(k, ok('{}'))), {
      kind: 'replayed',
      response: ok('{"new":1}'),
    });
  });
});

describe('atomic mode', () => {
  test('first request runs in one transaction with the key; a retry replays without running', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const first = await engine.execute(req, effect(k, ok('{"id":1}')));
    assert.deepEqual(first, { kind: 'executed', response: ok('{"id":1}'), stored: true });
    const second = await engine.execute(req, effect(k, ok('{"id":2}')));
    assert.deepEqual(second, { kind: 'replayed', response: ok('{"id":1}') });
    assert.equal(await effects(k), 1);
    assert.equal((await keyRow(k))?.state, 'completed');
  });

  test('same key, different fingerprint → mismatch, nothing runs', async () => {
    const k = key();
    await engine.execute({ tenant: 't', key: k, fingerprint: 'a' }, effect(k, ok('{}')));
    const outcome = await engine.execute({ tenant: 't', key: k, fingerprint: 'b' }, effect(k, ok('{}')));
    assert.deepEqual(outcome, { kind: 'mismatch' });
    assert.equal(await effects(k), 1);
  });

  test('keys are per tenant', async () => {
    const k = key();
    await engine.execute({ tenant: 't', key: k, fingerprint: 'a' }, effect(k, ok('{"t":1}')));
    const other = await engine.execute({ tenant: 'u', key: k, fingerprint: 'a' }, effect(k, ok('{"u":1}')));
    assert.equal(other.kind, 'executed');
    assert.equal(await effects(k), 2);
  });

  test('a throwing handler is rolled back and stores nothing; the retry runs again', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    await assert.rejects(
      engine.execute(req, async (tx) => {
        await effect(k, ok('{}'))(tx);
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await effects(k), 0);
    assert.equal(await keyRow(k), undefined);
    assert.equal((await engine.execute(req, effect(k, ok('{}')))).kind, 'executed');
    assert.equal(await effects(k), 1);
  });

  test('a 5xx answer is rolled back and not stored', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const outcome = await engine.execute(req, effect(k, ok('{"error":1}', 503)));
    assert.deepEqual(outcome, { kind: 'executed', response: ok('{"error":1}', 503), stored: false });
    assert.equal(await effects(k), 0);
    assert.equal(await keyRow(k), undefined);
  });

  test('400, 404, 412, 428 and 429 are not final: rolled back and not stored, so the retry runs again', async () => {
    for (const status of [400, 404, 412, 428, 429]) {
      const k = key();
      const req = { tenant: 't', key: k, fingerprint: 'fp' };
      const outcome = await engine.execute(req, effect(k, ok('{}', status)));
      assert.deepEqual(outcome, { kind: 'executed', response: ok('{}', status), stored: false });
      assert.equal(await effects(k), 0);
      assert.equal((await engine.execute(req, effect(k, ok('{}', 200)))).kind, 'executed');
    }
  });

  test('`final` on a response overrides the status rule either way', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const lost = await engine.execute(req, effect(k, { ...ok('{}', 409), final: false }));
    assert.equal(lost.kind === 'executed' && lost.stored, false);
    assert.equal(await effects(k), 0);
    const kept = await engine.execute(req, effect(k, { ...ok('{}', 404), final: true }));
    assert.equal(kept.kind === 'executed' && kept.stored, true);
    assert.equal((await engine.execute(req, effect(k, ok('{}')))).kind, 'replayed');
  });

  test('a 4xx answered after the handler started is stored and replayed', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    await engine.execute(req, async () => ok('{"code":"card_declined"}', 402));
    const again = await engine.execute(req, async () => ok('{}', 201));
    assert.deepEqual(again, { kind: 'replayed', response: ok('{"code":"card_declined"}', 402) });
  });

  test('an expired key is a new operation; purge deletes only expired rows', async () => {
    const k = key();
    const live = key();
    await engine.execute({ tenant: 't', key: k, fingerprint: 'a' }, effect(k, ok('{"v":1}')));
    clock += 30_000;
    await engine.execute({ tenant: 't', key: live, fingerprint: 'a' }, effect(live, ok('{}')));
    clock += 40_000; // k is 70 s old (ttl 60 s), live 40 s
    const outcome = await engine.execute({ tenant: 't', key: k, fingerprint: 'b' }, effect(k, ok('{"v":2}')));
    assert.equal(outcome.kind, 'executed');
    assert.equal(await effects(k), 2);
    clock += 61_000; // now both are expired, k was re-created 61 s ago
    const fresh = key();
    await engine.execute({ tenant: 't', key: fresh, fingerprint: 'a' }, effect(fresh, ok('{}')));
    const purged = await engine.purgeExpired({ batchSize: 1 });
    assert.ok(purged >= 2, `purged ${purged}`);
    assert.equal(await keyRow(k), undefined);
    assert.equal(await keyRow(live), undefined);
    assert.ok(await keyRow(fresh));
  });

  test('a record that finds the key already stored rolls the business write back, and the retry runs clean', async () => {
    // What the claim's snapshot can miss (a commit of the same key between its snapshot and its
    // lock), staged in the handler's own transaction on its first run: a live row for the key.
    const k = key();
    let runs = 0;
    const outcome = await engine.execute({ tenant: 't', key: k, fingerprint: 'a' }, async (tx) => {
      runs++;
      await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
      if (runs === 1) {
        await tx.query(
          `insert into "${db.schema}".idempotency_keys (tenant, key, lock_id, fingerprint, state, status, headers, body, created_at, expires_at)
           values ('t', $1, $2::int8, 'a', 'completed', 201, '{}', 'staged', $3::timestamptz, $4::timestamptz)`,
          [k, engine.lockId('t', k), new Date(clock).toISOString(), new Date(clock + 60_000).toISOString()],
        );
      }
      return ok(`{"run":${runs}}`);
    });
    assert.equal(runs, 2, 'the first run was rolled back and run again');
    assert.deepEqual(outcome, { kind: 'executed', response: ok('{"run":2}'), stored: true });
    assert.equal(await effects(k), 1, 'the first run left nothing');
    assert.equal((await keyRow(k))?.body, '{"run":2}');
  });

  test('the claim race is recognised whatever driver raised it (postgres.js, Prisma error shapes)', async () => {
    // The same staged race as above, with the unique violation dressed as another driver reports it:
    // postgres.js names the fields constraint_name / table_name, Prisma 7 keeps the server's words in
    // meta.driverAdapterError. The engine used to read node-postgres' `error.table` only.
    const asPostgresJs = (e: unknown) => {
      const { code, constraint, table, message } = e as Record<string, string>;
      return Object.assign(new Error(message), { code, constraint_name: constraint, table_name: table });
    };
    const asPrisma = (e: unknown) => {
      const { code, message } = e as Record<string, string>;
      const cause = { originalCode: code, originalMessage: message, kind: 'UniqueConstraintViolation' };
      return Object.assign(new Error('Unique constraint failed on the fields: (`lock_id`,`tenant`,`key`)'), {
        code: 'P2002',
        clientVersion: '7.0.0',
        meta: { modelName: 'IdempotencyKey', driverAdapterError: Object.assign(new Error('x'), { cause }) },
      });
    };
    for (const reshape of [asPostgresJs, asPrisma]) {
      const sql: Sql = {
        ...db.sql,
        transaction: (fn, options) =>
          db.sql.transaction(fn, options).catch((e: unknown) => {
            throw (e as { code?: string }).code === '23505' ? reshape(e) : e;
          }),
      };
      const other = new Idempotency({ sql, schema: db.schema, ttlMs: 60_000, now: () => clock });
      const k = key();
      let runs = 0;
      const outcome = await other.execute({ tenant: 't', key: k, fingerprint: 'a' }, async (tx) => {
        runs++;
        await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
        if (runs === 1) {
          await tx.query(
            `insert into "${db.schema}".idempotency_keys (tenant, key, lock_id, fingerprint, state, status, headers, body, created_at, expires_at)
             values ('t', $1, $2::int8, 'a', 'completed', 201, '{}', 'staged', $3::timestamptz, $4::timestamptz)`,
            [k, other.lockId('t', k), new Date(clock).toISOString(), new Date(clock + 60_000).toISOString()],
          );
        }
        return ok(`{"run":${runs}}`);
      });
      assert.equal(runs, 2, `${reshape.name}: the first run was rolled back and run again`);
      assert.deepEqual(outcome, { kind: 'executed', response: ok('{"run":2}'), stored: true });
      assert.equal(await effects(k), 1);
    }
  });

  test('a stored response keeps its bytes exactly: quotes, backslashes, unicode', async () => {
    const k = key();
    const body = `{"note":"it's \\ a "test" \\' ; commit; --","emoji":"\u00e9 ✓ 🚀","raw":"E'\\x00'"}`;
    const headers = { 'content-type': "application/json; q='1'", 'x-odd': 'a\\b' };
    const response = { status: 201, headers, body };
    await engine.execute(
      { tenant: "t'; drop table x; --", key: k, fingerprint: "f'\\" },
      async () => response,
    );
    const again = await engine.execute(
      { tenant: "t'; drop table x; --", key: k, fingerprint: "f'\\" },
      async () => ok('{}'),
    );
    assert.deepEqual(again, { kind: 'replayed', response });
  });

  test('purge rests between batches, so serving keeps its share of the database', async () => {
    const keys = [key(), key(), key()];
    for (const k of keys)
      await engine.execute({ tenant: 't', key: k, fingerprint: 'a' }, effect(k, ok('{}')));
    clock += 61_000;
    await engine.purgeExpired(); // anything older, so the next purge holds exactly these three
    for (const k of keys)
      await engine.execute({ tenant: 't', key: k, fingerprint: 'b' }, effect(k, ok('{}')));
    clock += 61_000;
    const started = performance.now();
    const purged = await engine.purgeExpired({ batchSize: 1, pauseMs: 60 });
    const took = performance.now() - started;
    assert.equal(purged, 3);
    // three full batches, each followed by a pause (the fourth finds nothing and ends the purge)
    assert.ok(took >= 170, `took ${took.toFixed(0)} ms`);
    for (const k of keys) assert.equal(await keyRow(k), undefined);
  });

  test('purge deletes every expired key and never a live one, with either commit mode', async () => {
    await engine.purgeExpired(); // whatever earlier tests left expired
    const t = `"${db.schema}".idempotency_keys`;
    const count = async (where: string) =>
      Number(
        (await db.sql.query<{ n: string }>(`select count(*)::text as n from ${t} where ${where}`)).rows[0]!.n,
      );
    const liveBefore = await count('true');
    for (const asyncCommit of [true, false]) {
      const tag = `bulk-${asyncCommit}`;
      const at = (ms: number) => new Date(clock + ms).toISOString();
      // 234 expired and 116 live, interleaved: one on the boundary (expires_at = now is expired),
      // every fifth sharing one expiry time (ties across batches), the rest a millisecond apart in
      // the reverse of their insertion order (so expiry order is not the table's order)
      await db.sql.query(
        `insert into ${t} (tenant, key, fingerprint, state, status, headers, body, created_at, expires_at, lock_id)
         select 't', $1 || '-' || i, 'f', 'completed', 201, '{}'::jsonb, '{}', $2::timestamptz,
                case when i % 3 = 0 then $3::timestamptz when i = 1 then $4::timestamptz
                     when i % 5 = 0 then $4::timestamptz - interval '100 ms'
                     else $4::timestamptz - i * interval '1 ms' end,
                i + $5::int8
           from generate_series(1, 350) i`,
        [tag, at(-120_000), at(1), at(0), asyncCommit ? 1_000_000 : 2_000_000],
      );
      const expired = await count(`key like '${tag}-%' and expires_at <= '${at(0)}'`);
      const live = await count(`key like '${tag}-%' and expires_at > '${at(0)}'`);
      assert.deepEqual([expired, live], [234, 116]);
      const purged = await engine.purgeExpired({ batchSize: 7, dutyCycle: 1, asyncCommit });
      assert.equal(purged, expired);
      assert.equal(await count(`key like '${tag}-%' and expires_at <= '${at(0)}'`), 0);
      assert.equal(await count(`key like '${tag}-%'`), live);
    }
    assert.equal(await count(`key not like 'bulk-%'`), liveBefore);
  });

  test('the store being unreachable is StoreUnavailableError and the handler never runs', async () => {
    let ran = false;
    const dead: Sql =
      db.backend === 'pg'
        ? createPgSql({
            connectionString: 'postgres://postgres@127.0.0.1:1/none',
            connectionTimeoutMillis: 500,
          })
        : await (async () => {
            const { createPgliteSql } = await import('@surety/db');
            const s = await createPgliteSql();
            await s.close();
            return s;
          })();
    const broken = new Idempotency({ sql: dead, schema: db.schema });
    await assert.rejects(
      broken.execute({ tenant: 't', key: key(), fingerprint: 'fp' }, async () => {
        ran = true;
        return ok('{}');
      }),
      StoreUnavailableError,
    );
    assert.equal(ran, false);
    await dead.close().catch(() => {});
  });

  test('a failing COMMIT stores nothing and is reported as an error, never as success', async () => {
    const s = `"${db.schema}"`;
    await db.sql.query(`create table ${s}.deferred (v int not null)`);
    await db.sql.query(`create function ${s}.never() returns trigger language plpgsql as
      $$ begin raise exception 'deferred check failed'; end $$`);
    await db.sql.query(`create constraint trigger fail_at_commit after insert on ${s}.deferred
      deferrable initially deferred for each row execute function ${s}.never()`);
    const k = key();
    await assert.rejects(
      engine.execute({ tenant: 't', key: k, fingerprint: 'fp' }, async (tx) => {
        await tx.query(`insert into ${s}.deferred values (1)`);
        return ok('{}');
      }),
      /deferred check failed/,
    );
    assert.equal(await keyRow(k), undefined);
  });
});

describe('lease mode', () => {
  test('acquire commits in_progress; a concurrent retry gets in_flight; complete stores the response', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const acquired = await engine.acquire(req);
    assert.equal(acquired.kind, 'acquired');
    assert.equal((await keyRow(k))?.state, 'in_progress');
    assert.equal((await engine.acquire(req)).kind, 'in_flight');
    // the atomic path respects a live lease too
    assert.equal((await engine.execute(req, async () => ok('{}'))).kind, 'in_flight');
    assert.deepEqual(await engine.acquire({ ...req, fingerprint: 'other' }), { kind: 'mismatch' });
    if (acquired.kind !== 'acquired') return;
    await acquired.lease.complete(ok('{"done":true}'));
    assert.deepEqual(await engine.acquire(req), { kind: 'replayed', response: ok('{"done":true}') });
  });

  test('an expired lease is taken over by the next retry and the old owner is fenced off', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const first = await engine.acquire(req);
    assert.equal(first.kind, 'acquired');
    clock += 6_000; // lease 5 s: the first owner "crashed"
    const second = await engine.acquire(req);
    assert.equal(second.kind, 'acquired');
    if (first.kind !== 'acquired' || second.kind !== 'acquired') return;
    assert.notEqual(first.lease.token, second.lease.token);
    await assert.rejects(first.lease.complete(ok('{"stale":true}')), LeaseLostError);
    await assert.rejects(first.lease.renew(), LeaseLostError);
    await assert.rejects(first.lease.release(), LeaseLostError);
    await second.lease.renew();
    await second.lease.complete(ok('{"owner":2}'));
    assert.deepEqual(await engine.acquire(req), { kind: 'replayed', response: ok('{"owner":2}') });
  });

  test('complete inside the business transaction commits both or neither', async () => {
    const k = key();
    const acquired = await engine.acquire({ tenant: 't', key: k, fingerprint: 'fp' });
    if (acquired.kind !== 'acquired') throw new Error('not acquired');
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
        await acquired.lease.complete(ok('{}'), tx);
        throw new Error('abort after complete');
      }),
    );
    assert.equal((await keyRow(k))?.state, 'in_progress');
    assert.equal(await effects(k), 0);
    await db.sql.transaction(async (tx) => {
      await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
      await acquired.lease.complete(ok('{}'), tx);
    });
    assert.equal((await keyRow(k))?.state, 'completed');
    assert.equal(await effects(k), 1);
  });

  test('withLease: the handler may complete in its own business transaction (issue 18)', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    // Calling lease.complete(response, tx) in the handler's transaction used to throw LeaseLostError
    // after the business row and the key had committed: withLease completed a second time itself.
    const done = await engine.withLease(req, (lease) =>
      db.sql.transaction(async (tx) => {
        await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
        await lease.complete(ok('{"in":"tx"}'), tx);
        return ok('{"in":"tx"}');
      }),
    );
    assert.deepEqual(done, { kind: 'executed', response: ok('{"in":"tx"}'), stored: true });
    assert.equal(await effects(k), 1);
    assert.deepEqual(await engine.withLease(req, async () => ok('{}')), {
      kind: 'replayed',
      response: ok('{"in":"tx"}'),
    });
  });

  test('a second complete by the same owner is harmless; another owner is still fenced off', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const acquired = await engine.acquire(req);
    if (acquired.kind !== 'acquired') throw new Error('not acquired');
    await acquired.lease.complete(ok('{"first":true}'));
    await acquired.lease.complete(ok('{"second":true}'));
    assert.deepEqual(await engine.acquire(req), { kind: 'replayed', response: ok('{"first":true}') });
    clock += 61_000; // past the 60 s ttl: the key is new again, and a new owner takes it
    const next = await engine.acquire(req);
    if (next.kind !== 'acquired') throw new Error('not acquired');
    await assert.rejects(acquired.lease.complete(ok('{"stale":true}')), LeaseLostError);
    await next.lease.complete(ok('{"owner":2}'));
    await assert.rejects(acquired.lease.complete(ok('{"stale":true}')), LeaseLostError);
  });

  test('withLease releases on failure so the retry runs again, and stores on success', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    await assert.rejects(engine.withLease(req, async () => Promise.reject(new Error('downstream down'))));
    assert.equal(await keyRow(k), undefined);
    const r503 = await engine.withLease(req, async () => ok('{}', 503));
    assert.deepEqual(r503, { kind: 'executed', response: ok('{}', 503), stored: false });
    assert.equal(await keyRow(k), undefined);
    const done = await engine.withLease(req, async () => ok('{"charged":1}', 201));
    assert.equal(done.kind, 'executed');
    assert.deepEqual(await engine.withLease(req, async () => ok('{}')), {
      kind: 'replayed',
      response: ok('{"charged":1}', 201),
    });
  });
});

describe('the naive-ORM guard (warnOnEmptyTransaction)', () => {
  const guarded = (warnings: IdempotencyWarning[], options: { warnOnEmptyTransaction?: boolean } = {}) =>
    new Idempotency({
      sql: db.sql,
      schema: db.schema,
      now: () => clock,
      ...options,
      onWarning: (w) => warnings.push(w),
    });

  test('a 2xx whose transaction wrote nothing warns after COMMIT; a write on tx, a 4xx or a replay do not', async () => {
    const warnings: IdempotencyWarning[] = [];
    const engine = guarded(warnings, { warnOnEmptyTransaction: true });
    const k = key();
    await engine.execute({ tenant: 't', key: k, fingerprint: 'fp' }, async (tx) => {
      await tx.query('select 1'); // reads assign no transaction id
      return ok('{}');
    });
    assert.equal(warnings.length, 1);
    assert.deepEqual(
      { ...warnings[0], message: undefined },
      { code: 'SURETY_IDEMPOTENCY_EMPTY_TRANSACTION', message: undefined, tenant: 't', key: k, status: 201 },
    );
    assert.match(warnings[0]!.message, /docs\/orm\.md/);
    // the key was stored all the same: the guard only tells
    assert.equal((await keyRow(k))?.state, 'completed');
    await engine.execute({ tenant: 't', key: k, fingerprint: 'fp' }, async () => ok('{}'));
    await engine.execute({ tenant: 't', key: key(), fingerprint: 'fp' }, effect('guard', ok('{}')));
    await engine.execute({ tenant: 't', key: key(), fingerprint: 'fp' }, async () =>
      ok('{"declined":true}', 402),
    );
    // a write through the connection under tx counts: it is the same transaction
    await engine.execute({ tenant: 't', key: key(), fingerprint: 'fp' }, async (tx) => {
      const client = tx.driver.client as { query(text: string, params: unknown[]): Promise<unknown> };
      await client.query(`insert into "${db.schema}".effects values ($1)`, ['guard-driver']);
      return ok('{}');
    });
    assert.equal(warnings.length, 1, 'a replay, a write on tx, a 402 decline: no warning');
  });

  test('a write through another connection (the naive ORM instance) warns', {
    skip: needsPostgres,
  }, async () => {
    const warnings: IdempotencyWarning[] = [];
    const engine = guarded(warnings, { warnOnEmptyTransaction: true });
    const other = db.connect(2);
    await engine.execute({ tenant: 't', key: key(), fingerprint: 'fp' }, async () => {
      await other.query(`insert into "${db.schema}".effects values ($1)`, ['naive']);
      return ok('{}');
    });
    assert.equal(warnings.length, 1);
  });

  test('on by default except when NODE_ENV is production; off when asked', async () => {
    const before = process.env.NODE_ENV;
    const empty = async () => ok('{}');
    try {
      const seen: IdempotencyWarning[] = [];
      process.env.NODE_ENV = 'production';
      await guarded(seen).execute({ tenant: 't', key: key(), fingerprint: 'fp' }, empty);
      await guarded(seen, { warnOnEmptyTransaction: false }).execute(
        { tenant: 't', key: key(), fingerprint: 'fp' },
        empty,
      );
      assert.equal(seen.length, 0);
      await guarded(seen, { warnOnEmptyTransaction: true }).execute(
        { tenant: 't', key: key(), fingerprint: 'fp' },
        empty,
      );
      assert.equal(seen.length, 1, 'asked for in production');
      process.env.NODE_ENV = 'development';
      await guarded(seen).execute({ tenant: 't', key: key(), fingerprint: 'fp' }, empty);
      assert.equal(seen.length, 2);
    } finally {
      if (before === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = before;
    }
  });
});

// On both backends (issue 20): on PGlite, whose transactions run one at a time, the duplicate used to
// queue behind the original and get its replay, where PostgreSQL answers in_flight at once.
describe('concurrent duplicates', () => {
  test('a second request with the same key answers in_flight at once instead of waiting on locks', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let entered!: () => void;
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    const first = engine.execute(req, async (tx) => {
      await tx.query(`insert into "${db.schema}".effects values ($1)`, [k]);
      entered();
      await gate;
      return ok('{"first":true}');
    });
    await inside;
    const started = Date.now();
    // Bounded: a second request that queued behind the first would wait for the gate forever.
    const waited = new Promise<'waited'>((r) => setTimeout(() => r('waited'), 2000).unref());
    const second = await Promise.race([engine.execute(req, effect(k, ok('{}'))), waited]);
    release();
    assert.deepEqual(second, { kind: 'in_flight', retryAfterSeconds: 1 });
    assert.ok(Date.now() - started < 1000, 'answered without waiting for the first transaction');
    assert.equal((await first).kind, 'executed');
    assert.deepEqual(await engine.execute(req, effect(k, ok('{}'))), {
      kind: 'replayed',
      response: ok('{"first":true}'),
    });
    assert.equal(await effects(k), 1);
  });

  test('another key is not held up by the in-flight registry', async () => {
    const k = key();
    const outcomes = await Promise.all([
      engine.execute({ tenant: 't', key: k, fingerprint: 'fp' }, effect(k, ok('{}'))),
      engine.execute({ tenant: 'other', key: k, fingerprint: 'fp' }, effect(k, ok('{}'))),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['executed', 'executed'],
    );
  });
});

describe('concurrency on PostgreSQL', { skip: needsPostgres }, () => {
  test('100 concurrent executions of one key run the handler once', async () => {
    const k = key();
    const req = { tenant: 't', key: k, fingerprint: 'fp' };
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, () => engine.execute(req, effect(k, ok('{"once":true}')))),
    );
    const kinds = outcomes.map((o) => o.kind);
    assert.equal(kinds.filter((x) => x === 'executed').length, 1);
    assert.ok(kinds.every((x) => x === 'executed' || x === 'replayed' || x === 'in_flight'));
    assert.equal(await effects(k), 1);
  });
});
