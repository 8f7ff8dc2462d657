import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DatabaseUnavailableError, type Sql } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import {
  deriveKey,
  type Flow,
  Idempotency,
  LeaseLostError,
  phasedOperation,
  type StoredResponse,
  StoreUnavailableError,
} from '../src/index.js';

// Phased operations (issue 32): every phase transition and resume point, on PGlite and (with
// DATABASE_URL) PostgreSQL.

let db: TestDatabase;
let clock = Date.parse('2026-01-01T00:00:00Z');
let engine: Idempotency;
let n = 0;
const key = () => `phase-${++n}`;
const LEASE = 5_000;

before(async () => {
  db = await createTestDatabase();
  engine = new Idempotency({
    sql: db.sql,
    schema: db.schema,
    ttlMs: 600_000,
    leaseMs: LEASE,
    now: () => clock,
  });
  await engine.migrate();
  await db.sql.query(`create table "${db.schema}".charges_local (k text not null, step text not null)`);
});
after(() => db.close());

const rowsOf = async (k: string, step: string) =>
  Number(
    (
      await db.sql.query<{ n: string }>(
        `select count(*)::text as n from "${db.schema}".charges_local where k = $1 and step = $2`,
        [k, step],
      )
    ).rows[0]!.n,
  );
const keyRow = async (k: string) =>
  (
    await db.sql.query<{
      state: string;
      recovery_point: string | null;
      phase_state: unknown;
      input: unknown;
    }>(
      `select state, recovery_point, phase_state, input from "${db.schema}".idempotency_keys where tenant = 't' and key = $1`,
      [k],
    )
  ).rows[0];
const req = (k: string, fingerprint = 'fp') => ({ tenant: 't', key: k, fingerprint });

/** A fake outside system honouring its idempotency key: one charge per derived key. */
class Provider {
  charges = new Map<string, number>();
  calls: string[] = [];
  /** Make the next calls hang (until released) or fail. */
  mode: 'ok' | 'fail' | 'hang' = 'ok';
  #release: (() => void) | undefined;
  async charge(derivedKey: string): Promise<{ id: string }> {
    this.calls.push(derivedKey);
    // Honours its key: a repeated key answers the first charge, it does not charge again.
    if (!this.charges.has(derivedKey)) this.charges.set(derivedKey, 1);
    if (this.mode === 'fail') throw new Error('connection reset after the charge');
    if (this.mode === 'hang') await new Promise<void>((resolve) => (this.#release = resolve));
    return { id: `ch_${derivedKey.slice(0, 8)}` };
  }
  release() {
    this.#release?.();
  }
}

function paymentOp(provider: Provider, hooks: { afterRecorded?: (flow: Flow) => Promise<void> | void } = {}) {
  return phasedOperation('test.pay', async (flow, input: { cents: number }) => {
    const created = await flow.local('created', async (tx) => {
      await tx.query(`insert into "${db.schema}".charges_local values ($1, 'created')`, [flow.key]);
      return { id: `pay_${flow.key}`, cents: input.cents };
    });
    const charge = await flow.external('charge', (k) => provider.charge(k));
    const recorded = await flow.local('recorded', async (tx) => {
      await tx.query(`insert into "${db.schema}".charges_local values ($1, 'recorded')`, [flow.key]);
      return { ...created, charge: charge.id, status: 'succeeded' };
    });
    await hooks.afterRecorded?.(flow);
    return { status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(recorded) };
  });
}

describe('phased operations', () => {
  test('a first run commits each phase once, stores the answer, and a retry replays it', async () => {
    const provider = new Provider();
    const op = paymentOp(provider);
    const k = key();
    const first = await engine.phased(req(k), op, { cents: 100 });
    assert.equal(first.kind, 'executed');
    const row = await keyRow(k);
    assert.equal(row?.state, 'completed');
    assert.equal(row?.recovery_point, 'recorded');
    assert.deepEqual(row?.input, { cents: 100 });
    assert.deepEqual(Object.keys(row?.phase_state as object).sort(), ['charge', 'created', 'recorded']);
    const again = await engine.phased(req(k), op, { cents: 100 });
    assert.equal(again.kind, 'replayed');
    assert.equal(
      again.kind === 'replayed' && again.response.body,
      first.kind === 'executed' && first.response.body,
    );
    assert.deepEqual(provider.calls, [deriveKey(k, 'charge')]);
    assert.equal(await rowsOf(k, 'created'), 1);
    assert.equal(await rowsOf(k, 'recorded'), 1);
  });

  test('the call fails after charging: the key is kept, a retry resumes after "created" and repeats the call with the same derived key', async () => {
    const provider = new Provider();
    const op = paymentOp(provider);
    const k = key();
    provider.mode = 'fail';
    await assert.rejects(engine.phased(req(k), op, { cents: 5 }), /connection reset/);
    const paused = await keyRow(k);
    assert.equal(paused?.state, 'in_progress');
    assert.equal(paused?.recovery_point, 'created');
    provider.mode = 'ok';
    const retried = await engine.phased(req(k), op, { cents: 5 });
    assert.equal(retried.kind, 'executed');
    assert.deepEqual(provider.calls, [deriveKey(k, 'charge'), deriveKey(k, 'charge')]);
    assert.equal(provider.charges.get(deriveKey(k, 'charge')), 1);
    assert.equal(await rowsOf(k, 'created'), 1, 'the committed local phase did not run again');
    assert.equal(await rowsOf(k, 'recorded'), 1);
  });

  test('a failure before any phase releases the key; a failure in a local phase rolls its writes back', async () => {
    const k = key();
    const early = phasedOperation('test.early', async () => {
      throw new Error('bad before anything');
    });
    await assert.rejects(engine.phased(req(k), early, null), /bad before anything/);
    assert.equal(await keyRow(k), undefined);
    const k2 = key();
    const failing = phasedOperation('test.local-fails', async (flow) => {
      await flow.local('created', async (tx) => {
        await tx.query(`insert into "${db.schema}".charges_local values ($1, 'created')`, [flow.key]);
        throw new Error('constraint');
      });
      return { status: 201, headers: {}, body: '' };
    });
    await assert.rejects(engine.phased(req(k2), failing, null), /constraint/);
    assert.equal(await rowsOf(k2, 'created'), 0);
  });

  test('a non-final answer after a phase is not stored; the retry resumes and its final answer is', async () => {
    const provider = new Provider();
    let status = 503;
    const op = phasedOperation('test.nonfinal', async (flow) => {
      await flow.local('created', async (tx) => {
        await tx.query(`insert into "${db.schema}".charges_local values ($1, 'created')`, [flow.key]);
        return 1;
      });
      const c = await flow.external('charge', (k) => provider.charge(k));
      return { status, headers: {}, body: c.id };
    });
    const k = key();
    const first = await engine.phased(req(k), op, null);
    assert.deepEqual(first.kind === 'executed' && first.stored, false);
    assert.equal((await keyRow(k))?.recovery_point, 'charge');
    status = 201;
    const second = await engine.phased(req(k), op, null);
    assert.equal(second.kind === 'executed' && second.stored, true);
    assert.equal(provider.calls.length, 1, 'the recorded call was not repeated');
    assert.equal(await rowsOf(k, 'created'), 1);
  });

  test('a duplicate while the first runs is in_flight at once; another fingerprint is a mismatch', async () => {
    const provider = new Provider();
    provider.mode = 'hang';
    const op = paymentOp(provider);
    const k = key();
    const first = engine.phased(req(k), op, { cents: 1 });
    while (provider.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    const dup = await engine.phased(req(k), op, { cents: 1 });
    assert.equal(dup.kind, 'in_flight');
    const other = await engine.phased(req(k, 'other'), op, { cents: 2 });
    assert.equal(other.kind, 'mismatch');
    provider.release();
    assert.equal((await first).kind, 'executed');
  });

  test('a fingerprint mismatch on resume (paused key) is a mismatch, and leaves the key to its own retry', async () => {
    const provider = new Provider();
    provider.mode = 'fail';
    const op = paymentOp(provider);
    const k = key();
    await assert.rejects(engine.phased(req(k), op, { cents: 1 }));
    assert.equal((await engine.phased(req(k, 'other'), op, { cents: 9 })).kind, 'mismatch');
    provider.mode = 'ok';
    assert.equal((await engine.phased(req(k), op, { cents: 1 })).kind, 'executed');
  });

  test('a crashed owner (lease lapsed mid-call) is taken over by a retry; the old owner is fenced off', async () => {
    const provider = new Provider();
    provider.mode = 'hang';
    const op = paymentOp(provider);
    const k = key();
    const crashed = engine.phased(req(k), op, { cents: 3 });
    while (provider.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    clock += LEASE + 1;
    provider.mode = 'ok';
    const retry = await engine.phased(req(k), op, { cents: 3 });
    assert.equal(retry.kind, 'executed');
    provider.release();
    await assert.rejects(crashed, LeaseLostError);
    assert.deepEqual(provider.calls, [deriveKey(k, 'charge'), deriveKey(k, 'charge')]);
    assert.equal(provider.charges.get(deriveKey(k, 'charge')), 1);
    assert.equal(await rowsOf(k, 'created'), 1);
    assert.equal(await rowsOf(k, 'recorded'), 1);
  });

  test('killed after the last phase, before the answer was stored: the retry answers from the recorded phases', async () => {
    const provider = new Provider();
    let crash = true;
    const op = paymentOp(provider, {
      afterRecorded: () => {
        if (crash) throw new Error('killed before the answer');
      },
    });
    const k = key();
    await assert.rejects(engine.phased(req(k), op, { cents: 4 }));
    assert.equal((await keyRow(k))?.recovery_point, 'recorded');
    crash = false;
    const retry = await engine.phased(req(k), op, { cents: 4 });
    assert.equal(retry.kind, 'executed');
    assert.equal(provider.calls.length, 1);
    assert.equal(await rowsOf(k, 'recorded'), 1);
  });

  test('the completer finishes an abandoned request with its stored input, after the grace', async () => {
    const provider = new Provider();
    provider.mode = 'hang';
    const seen: unknown[] = [];
    const base = paymentOp(provider);
    const op = phasedOperation<{ cents: number }>('test.pay', async (flow, input) => {
      seen.push(input);
      return base.run(flow, input);
    });
    const k = key();
    const abandoned = engine.phased(req(k), op, { cents: 77 });
    while (provider.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    provider.mode = 'ok';
    const completer = engine.completer({ operations: [op], graceMs: 1_000 });
    clock += LEASE - 1;
    assert.equal(await completer.runOnce(), 0, 'the lease has not lapsed');
    clock += 2;
    assert.equal(await completer.runOnce(), 0, 'within the grace a client retry goes first');
    clock += 1_000;
    assert.equal(await completer.runOnce(), 1);
    assert.deepEqual(seen, [{ cents: 77 }, { cents: 77 }]);
    provider.release();
    await assert.rejects(abandoned, LeaseLostError);
    const replay = await engine.phased(req(k), op, { cents: 77 });
    assert.equal(replay.kind, 'replayed');
    assert.equal(provider.charges.get(deriveKey(k, 'charge')), 1);
  });

  test('the completer reports a key whose operation it does not know, and loops until stopped', async () => {
    const provider = new Provider();
    provider.mode = 'fail';
    const op = paymentOp(provider);
    const k = key();
    await assert.rejects(engine.phased(req(k), op, { cents: 1 }));
    clock += LEASE * 2;
    const errors: string[] = [];
    const none = engine.completer({
      operations: [],
      onError: (e, at) => errors.push(`${at.key}:${String(e)}`),
    });
    assert.equal(await none.runOnce(), 0);
    assert.ok(errors.some((e) => e.startsWith(`${k}:`) && e.includes('no operation named')));
    provider.mode = 'ok';
    const completer = engine.completer({ operations: [op], intervalMs: 10 });
    completer.start();
    for (let i = 0; i < 200 && (await keyRow(k))?.state !== 'completed'; i++)
      await new Promise((r) => setTimeout(r, 10));
    await completer.stop();
    assert.equal((await keyRow(k))?.state, 'completed');
    assert.throws(() => engine.completer({ operations: [], batchSize: 0 }), RangeError);
  });

  test('an expired key starts over: no recorded phase is reused', async () => {
    const provider = new Provider();
    const op = paymentOp(provider);
    const k = key();
    await engine.phased(req(k), op, { cents: 1 });
    clock += 600_001;
    const again = await engine.phased(req(k), op, { cents: 1 });
    assert.equal(again.kind, 'executed');
    assert.equal(await rowsOf(k, 'created'), 2);
    assert.equal(provider.calls.length, 2);
  });

  test('phase names: checked, and one name runs once per operation', async () => {
    assert.throws(() => phasedOperation('', async () => ({ status: 200, headers: {}, body: '' })), TypeError);
    const op = phasedOperation('test.twice', async (flow): Promise<StoredResponse> => {
      await flow.local('a', async () => 1);
      await flow.local('a', async () => 2);
      return { status: 200, headers: {}, body: '' };
    });
    await assert.rejects(engine.phased(req(key()), op, null), /runs twice/);
  });
});

/**
 * The store as a failover leaves it for a moment: every statement fails as unreachable while `down`
 * (node-postgres' ECONNREFUSED, classified by @surety/db), then the real database answers again.
 */
function outage(sql: Sql): Sql & { down: boolean; loseAnswerOf?: string; loseNextCommit?: boolean } {
  const gone = () => new DatabaseUnavailableError('connect ECONNREFUSED (the primary is gone)');
  const flaky: Sql & { down: boolean; loseAnswerOf?: string; loseNextCommit?: boolean } = {
    down: false,
    kind: sql.kind,
    query: (async (text: unknown, params?: unknown[]) => {
      if (flaky.down) throw gone();
      const result = await sql.query(text as string, params);
      // The statement committed, then the primary died before its answer arrived.
      const name = typeof text === 'object' && text !== null ? (text as { name?: string }).name : undefined;
      if (flaky.loseAnswerOf && name?.includes(flaky.loseAnswerOf)) {
        flaky.down = true;
        throw new DatabaseUnavailableError('read ECONNRESET (the primary died after the commit)');
      }
      return result;
    }) as Sql['query'],
    transaction: (async (
      fn: Parameters<Sql['transaction']>[0],
      options?: Parameters<Sql['transaction']>[1],
    ) => {
      if (flaky.down) throw gone();
      const result = await sql.transaction(fn, options);
      // The transaction committed, then the primary died before the COMMIT's answer arrived.
      if (flaky.loseNextCommit) {
        flaky.loseNextCommit = false;
        flaky.down = true;
        throw new DatabaseUnavailableError('read ECONNRESET (the primary died after the commit)');
      }
      return result;
    }) as Sql['transaction'],
    listen: (channel, onNotify) => sql.listen(channel, onNotify),
    notify: (channel, payload) => sql.notify(channel, payload),
    close: async () => {},
  };
  return flaky;
}

/** An engine (60 s leases, the test clock) on an `outage` of the test database. */
function outageEngine() {
  const store = outage(db.sql);
  const flaky = new Idempotency({
    sql: store,
    schema: db.schema,
    ttlMs: 600_000,
    leaseMs: 60_000,
    now: () => clock,
  });
  return { store, flaky };
}

/** Whether `check` held within 3 s (tried every 50 ms): the owner's give-back lands in the background. */
async function within3s(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (await check()) return true;
  }
  return false;
}

/** Whether the key's lease has lapsed by the test clock; undefined when the key is gone. */
async function leaseLapsed(k: string): Promise<boolean | undefined> {
  const row = await db.sql.query<{ lapsed: boolean }>(
    `select lease_expires_at <= $2::timestamptz as lapsed from "${db.schema}".idempotency_keys where tenant = 't' and key = $1`,
    [k, new Date(clock).toISOString()],
  );
  return row.rows[0]?.lapsed;
}

describe('phased operations through a store outage (a failover)', () => {
  test('the store gone after the call: the run answers 503, and once the store is back the owner lets its lease lapse, so a retry resumes at once (not after the lease)', async () => {
    const { store, flaky } = outageEngine();
    const provider = new Provider();
    const original = provider.charge.bind(provider);
    // The primary dies while the provider is charging: the result cannot be recorded.
    provider.charge = async (k: string) => {
      const charged = await original(k);
      store.down = true;
      return charged;
    };
    const op = paymentOp(provider);
    const k = key();
    await assert.rejects(flaky.phased(req(k), op, { cents: 7 }), StoreUnavailableError);
    const held = await db.sql.query<{ lease: string }>(
      `select lease_expires_at::text as lease from "${db.schema}".idempotency_keys where tenant = 't' and key = $1`,
      [k],
    );
    assert.ok(Date.parse(held.rows[0]!.lease) > clock, 'the lease is still held while the store is gone');
    store.down = false; // the standby is promoted
    provider.charge = original;
    // The clock does not move: only the owner's own release can make the key available again.
    const lapsed = await within3s(async () => (await leaseLapsed(k)) === true);
    assert.ok(lapsed, 'the owner let its lease lapse once the store answered again (within 3 s)');
    const retried = await flaky.phased(req(k), op, { cents: 7 });
    assert.equal(retried.kind, 'executed', 'the retry resumed at once');
    assert.equal(provider.charges.get(deriveKey(k, 'charge')), 1, 'charged once');
    assert.equal(await rowsOf(k, 'recorded'), 1);
  });

  test("the first local phase committed but its answer was lost: the owner's give-back keeps the phase, and the retry does not run it again", async () => {
    // A failover between the 'created' phase's COMMIT (on the synchronous standby) and its answer:
    // the run never learns the phase committed. Giving the key back as if nothing had started
    // deleted it with its phase, and the retry created the payment a second time (CI's failover run:
    // one payment doubled).
    const { store, flaky } = outageEngine();
    const op = paymentOp(new Provider());
    const k = key();
    store.loseNextCommit = true; // the run's first transaction: the 'created' phase
    await assert.rejects(flaky.phased(req(k), op, { cents: 7 }), StoreUnavailableError);
    assert.equal(await rowsOf(k, 'created'), 1, "the phase's writes committed");
    store.down = false; // the standby is promoted
    // The owner gives the key back once the store answers (release-later: from 100 ms).
    const settled = await within3s(async () => (await leaseLapsed(k)) !== false);
    assert.ok(settled, 'the owner gave the key back once the store answered (within 3 s)');
    assert.ok((await keyRow(k))?.phase_state, 'the key kept its committed phase');
    const retried = await flaky.phased(req(k), op, { cents: 7 });
    assert.equal(retried.kind, 'executed');
    assert.equal(await rowsOf(k, 'created'), 1, 'the payment was created once');
    assert.equal(await rowsOf(k, 'recorded'), 1);
  });

  test('lease mode the same: a handler cut by the outage releases its key once the store is back', async () => {
    const { store, flaky } = outageEngine();
    const k = key();
    await assert.rejects(
      flaky.withLease(req(k), async () => {
        store.down = true;
        throw new DatabaseUnavailableError('connection terminated (the primary is gone)');
      }),
      DatabaseUnavailableError,
    );
    store.down = false;
    const released = await within3s(async () => (await keyRow(k)) === undefined);
    assert.ok(released, 'the key was released once the store answered again (within 3 s)');
    const retried = await flaky.withLease(req(k), async () => ({ status: 201, headers: {}, body: '{}' }));
    assert.equal(retried.kind, 'executed');
  });

  for (const mode of ['phased', 'lease'] as const) {
    test(`${mode}: the key's claim committed but its answer was lost: the key is given back once the store answers, not held for the lease`, async () => {
      const { store, flaky } = outageEngine();
      store.loseAnswerOf = 'acquire';
      const provider = new Provider();
      const op = paymentOp(provider);
      const k = key();
      const run = () =>
        mode === 'phased'
          ? flaky.phased(req(k), op, { cents: 9 })
          : flaky.withLease(req(k), async () => ({ status: 201, headers: {}, body: '{}' }));
      await assert.rejects(run(), StoreUnavailableError);
      assert.equal((await keyRow(k))?.state, 'in_progress', 'the claim committed');
      store.loseAnswerOf = undefined;
      store.down = false;
      const free = await within3s(async () => (await keyRow(k)) === undefined);
      assert.ok(free, 'the claim nothing ran for was released once the store answered again (within 3 s)');
      const retried = await run();
      assert.equal(retried.kind, 'executed');
      assert.equal(provider.charges.size, mode === 'phased' ? 1 : 0);
    });
  }
});
