import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Sql, Tx } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { deriveKey, Idempotency, LeaseLostError, phasedOperation } from '../src/index.js';
import { quotedKey } from '../src/key.js';

// What a phased operation costs in statements of the layer's own (issue 36's idempotency bench
// regression): one to acquire the key (the key's former, quoted form read in it), one to store the
// answer. A local phase's record, fenced by the owner's token, travels with COMMIT; an external phase's
// result is recorded with the next local phase (rocket-rides-atomic's order), or with the give-back
// when the run stops before one. On PGlite and (with DATABASE_URL) PostgreSQL.

let db: TestDatabase;
let clock = Date.parse('2026-01-01T00:00:00Z');
let n = 0;
const key = () => `trip-${++n}`;
const LEASE = 5_000;

/** What the engine sent through the Sql it was given. */
interface Sent {
  /** Statements outside a transaction. */
  alone: string[];
  /** Transactions: whether a statement travelled with COMMIT, and the statements between. */
  transactions: { atCommit: boolean; inside: string[] }[];
}

/** A `query` that notes each statement's text in `into`, then runs it on `target`. */
const noting =
  (target: Pick<Sql, 'query'>, into: string[]) =>
  (statement: string | { text: string }, params?: unknown[]) => {
    into.push(typeof statement === 'string' ? statement : statement.text);
    return target.query(statement as string, params);
  };

/** `sql`, recording what goes through it: statements alone, and each transaction's. */
function counting(sql: Sql, sent: Sent): Sql {
  const wrapTx = (tx: Tx, record: Sent['transactions'][number]): Tx =>
    new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop === 'query') return noting(target, record.inside);
        if (prop === 'atCommit')
          return (statement: Parameters<Tx['atCommit']>[0]) => {
            record.atCommit = true;
            target.atCommit(statement);
          };
        return Reflect.get(target, prop, receiver);
      },
    });
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'query') return noting(target, sent.alone);
      if (prop === 'transaction')
        return (fn: (tx: Tx, first: unknown) => Promise<unknown>, options?: { first?: unknown }) => {
          const record = { atCommit: false, inside: [] as string[] };
          sent.transactions.push(record);
          return target.transaction((tx, first) => fn(wrapTx(tx, record), first), options as never);
        };
      return Reflect.get(target, prop, receiver);
    },
  });
}

before(async () => {
  db = await createTestDatabase();
  await new Idempotency({ sql: db.sql, schema: db.schema }).migrate();
  await db.sql.query(`create table "${db.schema}".trips_local (k text not null, step text not null)`);
});
after(() => db.close());

function engineOver(sent: Sent) {
  return new Idempotency({
    sql: counting(db.sql, sent),
    schema: db.schema,
    ttlMs: 600_000,
    leaseMs: LEASE,
    now: () => clock,
  });
}

const insert = (k: string, step: string) =>
  `insert into "${db.schema}".trips_local values ('${k}', '${step}')`;
const steps = async (k: string) =>
  (
    await db.sql.query<{ step: string }>(
      `select step from "${db.schema}".trips_local where k = $1 order by step`,
      [k],
    )
  ).rows.map((r) => r.step);
const keyRow = async (k: string) =>
  (
    await db.sql.query<{
      state: string;
      recovery_point: string | null;
      phase_state: Record<string, unknown>;
    }>(
      `select state, recovery_point, phase_state from "${db.schema}".idempotency_keys where tenant = 't' and key = $1`,
      [k],
    )
  ).rows[0];
const req = (k: string, fingerprint = 'fp') => ({
  tenant: 't',
  key: k,
  fingerprint,
  formerKeys: [quotedKey(k)],
});

/** created (local) → charge (external) → recorded (local), as POST /v1/payments. */
function payment(calls: string[], fail: { recorded?: boolean } = {}) {
  return phasedOperation('trips.pay', async (flow) => {
    await flow.local('created', async (tx) => {
      await tx.query(insert(flow.key, 'created'));
      return 1;
    });
    const charge = await flow.external('charge', async (k) => {
      calls.push(k);
      return { id: `ch_${calls.length}` };
    });
    const recorded = await flow.local('recorded', async (tx) => {
      await tx.query(insert(flow.key, 'recorded'));
      if (fail.recorded) throw new Error('the second local phase failed');
      return charge.id;
    });
    return { status: 201, headers: {}, body: recorded };
  });
}

describe('a phased operation costs two statements of the layer', () => {
  test('local → external → local: acquire and answer alone; each record travels with its COMMIT', async () => {
    const sent: Sent = { alone: [], transactions: [] };
    const engine = engineOver(sent);
    const calls: string[] = [];
    const k = key();
    const outcome = await engine.phased(req(k), payment(calls), null);
    assert.equal(outcome.kind, 'executed');
    assert.equal(sent.alone.length, 2, `the layer's own statements: ${sent.alone.join('\n---\n')}`);
    assert.equal(sent.transactions.length, 2);
    for (const t of sent.transactions) {
      assert.ok(t.atCommit, 'the record travels with COMMIT');
      assert.deepEqual(
        t.inside.filter((s) => !s.startsWith('insert into')),
        [],
        'no statement of the layer between',
      );
    }
    const row = await keyRow(k);
    assert.equal(row?.state, 'completed');
    assert.deepEqual(Object.keys(row?.phase_state ?? {}).sort(), ['charge', 'created', 'recorded']);
    assert.deepEqual(calls, [deriveKey(k, 'charge')]);
    // A retry replays with one statement: the acquire that reads the key.
    const retry: Sent = { alone: [], transactions: [] };
    assert.equal((await engineOver(retry).phased(req(k), payment(calls), null)).kind, 'replayed');
    assert.equal(retry.alone.length, 1);
    assert.equal(retry.transactions.length, 0);
  });

  test('the call answered, the next local phase failed: the give-back records the call, and the retry does not repeat it', async () => {
    const sent: Sent = { alone: [], transactions: [] };
    const engine = engineOver(sent);
    const calls: string[] = [];
    const k = key();
    await assert.rejects(
      engine.phased(req(k), payment(calls, { recorded: true }), null),
      /second local phase/,
    );
    const paused = await keyRow(k);
    assert.equal(paused?.state, 'in_progress');
    assert.equal(paused?.recovery_point, 'charge');
    assert.deepEqual(paused?.phase_state.charge, { id: 'ch_1' });
    assert.deepEqual(await steps(k), ['created'], "the failed phase's write rolled back");
    const retried = await engine.phased(req(k), payment(calls), null);
    assert.equal(retried.kind, 'executed');
    assert.equal(
      retried.kind === 'executed' && retried.response.body,
      'ch_1',
      'the recorded charge, not a new one',
    );
    assert.deepEqual(calls, [deriveKey(k, 'charge')], 'the provider was called once');
    assert.deepEqual(await steps(k), ['created', 'recorded']);
  });

  test('the call answered and the answer is not final: the give-back records the call', async () => {
    const calls: string[] = [];
    const op = phasedOperation('trips.nonfinal', async (flow) => {
      await flow.local('created', async () => 1);
      const c = await flow.external('charge', async (k) => {
        calls.push(k);
        return 'ch';
      });
      return { status: calls.length === 1 ? 503 : 201, headers: {}, body: c };
    });
    const engine = engineOver({ alone: [], transactions: [] });
    const k = key();
    const first = await engine.phased(req(k), op, null);
    assert.equal(first.kind === 'executed' && first.stored, false);
    assert.equal((await keyRow(k))?.recovery_point, 'charge');
    assert.deepEqual(calls, [deriveKey(k, 'charge')]);
  });

  test('a phase whose code sends its own statement with COMMIT: the record goes before it, still one transaction', async () => {
    const op = phasedOperation('trips.own-at-commit', async (flow) => {
      await flow.local('created', async (tx) => {
        tx.atCommit(insert(flow.key, 'at-commit'));
        return 1;
      });
      return { status: 201, headers: {}, body: 'ok' };
    });
    const engine = engineOver({ alone: [], transactions: [] });
    const k = key();
    assert.equal((await engine.phased(req(k), op, null)).kind, 'executed');
    assert.deepEqual(await steps(k), ['at-commit']);
    assert.equal((await keyRow(k))?.recovery_point, 'created');
  });
});

describe('formerKeys in a phased operation (issue 20), read in the acquire', () => {
  test('a row under the quoted form replays, refuses another fingerprint, is in flight while leased; nothing is written under the new form', async () => {
    const engine = engineOver({ alone: [], transactions: [] });
    const calls: string[] = [];
    const k = key();
    const quoted = quotedKey(k);
    const old = await engine.phased({ tenant: 't', key: quoted, fingerprint: 'fp' }, payment(calls), null);
    assert.equal(old.kind, 'executed');
    const replay = await engine.phased(req(k), payment(calls), null);
    assert.equal(replay.kind, 'replayed');
    assert.equal(replay.kind === 'replayed' && replay.response.body, 'ch_1');
    assert.deepEqual(await engine.phased(req(k, 'other'), payment(calls), null), { kind: 'mismatch' });
    assert.equal(await keyRow(k), undefined, 'nothing stored under the new form');
    assert.equal(calls.length, 1);
    // A quoted key in progress (its lease live) is in flight for the bare form too.
    const hung = key();
    // The gate exists before the run: released before the run reaches it, the run goes on (a
    // resolver assigned when the run got there was a no-op if called earlier, and the run hung).
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const hanging = phasedOperation('trips.hang', async (flow) => {
      await flow.local('created', async () => 1);
      await gate;
      return { status: 201, headers: {}, body: '' };
    });
    const running = engine.phased({ tenant: 't', key: quotedKey(hung), fingerprint: 'fp' }, hanging, null);
    for (let i = 0; i < 400 && (await keyRow(quotedKey(hung))) === undefined; i++)
      await new Promise((r) => setTimeout(r, 5));
    assert.ok(await keyRow(quotedKey(hung)), 'the quoted key is in progress');
    const dup = await engine.phased(req(hung), hanging, null);
    assert.equal(dup.kind, 'in_flight');
    release();
    assert.equal((await running).kind, 'executed');
    assert.equal(await keyRow(hung), undefined);
    // Expired: the bare key is a new operation, stored under its own form.
    clock += 600_001;
    const fresh = await engine.phased(req(k), payment(calls), null);
    assert.equal(fresh.kind, 'executed');
    assert.equal((await keyRow(k))?.state, 'completed');
    assert.equal(calls.length, 2);
  });
});

describe('more former forms than one (no adapter sends more, the API allows it)', () => {
  test('a row under the second is found by the atomic claim and by the phased acquire', async () => {
    const engine = engineOver({ alone: [], transactions: [] });
    const calls: string[] = [];
    const k = key();
    const second = `old:${k}`;
    const stored = await engine.phased({ tenant: 't', key: second, fingerprint: 'fp' }, payment(calls), null);
    assert.equal(stored.kind, 'executed');
    const formerKeys = [quotedKey(k), second];
    const phased = await engine.phased(
      { tenant: 't', key: k, fingerprint: 'fp', formerKeys },
      payment(calls),
      null,
    );
    assert.equal(phased.kind === 'replayed' && phased.response.body, 'ch_1');
    const atomic = await engine.execute({ tenant: 't', key: k, fingerprint: 'fp', formerKeys }, async () => ({
      status: 201,
      headers: {},
      body: 'ran',
    }));
    assert.equal(atomic.kind === 'replayed' && atomic.response.body, 'ch_1');
    assert.equal(await keyRow(k), undefined);
    assert.equal(calls.length, 1);
  });
});

describe('failure paths of the deferred and at-COMMIT records', () => {
  test('a result the store refuses (\\u0000 in jsonb): the give-back still lets the lease lapse, and the retry resumes at once', async () => {
    const calls: string[] = [];
    const op = phasedOperation('trips.refused', async (flow) => {
      await flow.local('created', async () => 1);
      const c = await flow.external('charge', async (k) => {
        calls.push(k);
        return calls.length === 1 ? 'a\u0000b' : 'ok';
      });
      return { status: calls.length === 1 ? 503 : 201, headers: {}, body: c };
    });
    const engine = engineOver({ alone: [], transactions: [] });
    const k = key();
    const first = await engine.phased(req(k), op, null);
    assert.equal(first.kind === 'executed' && first.response.status, 503);
    assert.equal((await keyRow(k))?.recovery_point, 'created', 'the refused result is not recorded');
    const retry = await engine.phased(req(k), op, null);
    assert.equal(
      retry.kind === 'executed' && retry.response.status,
      201,
      'not in flight: the key was given back',
    );
    assert.deepEqual(calls, [deriveKey(k, 'charge'), deriveKey(k, 'charge')]);
  });

  test("a deferred trigger's division by zero at COMMIT is the phase's error, not a lost lease; the key is given back", async () => {
    for (const statement of [
      `create table if not exists "${db.schema}".trips_deferred (k text)`,
      `create or replace function "${db.schema}".trips_fail() returns trigger language plpgsql as
         $$ begin perform 1 / 0; return null; end $$`,
      `create constraint trigger trips_fail after insert on "${db.schema}".trips_deferred
         deferrable initially deferred for each row execute function "${db.schema}".trips_fail()`,
    ])
      await db.sql.query(statement);
    const op = phasedOperation('trips.deferred', async (flow) => {
      await flow.local('created', async (tx) => {
        await tx.query(`insert into "${db.schema}".trips_deferred values ($1)`, [flow.key]);
        return 1;
      });
      return { status: 201, headers: {}, body: 'ok' };
    });
    const engine = engineOver({ alone: [], transactions: [] });
    const k = key();
    await assert.rejects(engine.phased(req(k), op, null), (error: Error) => {
      assert.notEqual(error.name, 'LeaseLostError');
      assert.match(error.message, /division by zero/);
      return true;
    });
    assert.equal(await keyRow(k), undefined, 'nothing committed: the key was released');
  });

  test('a renewal that matches nothing (the key taken over) stops the run before its next phase calls out', async () => {
    const calls: string[] = [];
    let resume = () => {};
    const paused = new Promise<void>((r) => (resume = r));
    const op = phasedOperation('trips.taken', async (flow) => {
      await flow.local('created', async () => 1);
      await paused;
      await flow.external('charge', async (k) => calls.push(k));
      return { status: 201, headers: {}, body: 'ok' };
    });
    // A short lease: the renewer runs every 100 ms of real time.
    const engine = new Idempotency({
      sql: db.sql,
      schema: db.schema,
      leaseMs: 300,
      ttlMs: 600_000,
      now: () => clock,
    });
    const k = key();
    const run = engine.phased(req(k), op, null);
    for (let i = 0; i < 400 && (await keyRow(k))?.recovery_point !== 'created'; i++)
      await new Promise((r) => setTimeout(r, 5));
    await db.sql.query(
      `update "${db.schema}".idempotency_keys set owner = gen_random_uuid() where tenant = 't' and key = $1`,
      [k],
    );
    await new Promise((r) => setTimeout(r, 350));
    resume();
    await assert.rejects(run, LeaseLostError);
    assert.deepEqual(calls, [], 'the provider was not called by the run that lost the key');
  });
});
