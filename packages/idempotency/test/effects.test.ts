import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import {
  createEffects,
  defineEffect,
  type EffectDefinition,
  type EffectOutcome,
  type Effects,
} from '../src/effects/index.js';
import { deriveKey, EffectFailedError, EffectRetryLaterError } from '../src/index.js';

// The effects outbox (issue 32): enqueue in the business transaction, run with the derived key,
// retry on the client policy until the deadline, record the result with the follow-up write in one
// transaction. On PGlite and (with DATABASE_URL) PostgreSQL; concurrent workers on PostgreSQL.

let db: TestDatabase;
let clock = Date.parse('2026-01-01T00:00:00Z');
const now = () => clock;
let n = 0;
const key = () => `op-${++n}`;
const LEASE = 10_000;

before(async () => {
  db = await createTestDatabase();
  await createEffects({ sql: db.sql, schema: db.schema, effects: [] }).migrate();
  await db.sql.query(
    `create table "${db.schema}".ledger (effect_key text not null, charge text not null, note text)`,
  );
});
after(() => db.close());

const ledgerRows = async (k: string) =>
  (
    await db.sql.query<{ charge: string; note: string | null }>(
      `select charge, note from "${db.schema}".ledger where effect_key = $1 order by charge`,
      [k],
    )
  ).rows;

/** A fake outside system honouring its idempotency key: one charge per key, answered again after. */
class Provider {
  charges = new Map<string, number>();
  calls: string[] = [];
  mode: 'ok' | 'fail' | 'hang' | 'later' | 'reject' = 'ok';
  #release: (() => void) | undefined;
  async charge(derivedKey: string): Promise<{ id: string }> {
    this.calls.push(derivedKey);
    if (this.mode === 'later') throw new EffectRetryLaterError(120_000);
    if (this.mode === 'reject') throw new EffectFailedError('provider_rejected');
    if (!this.charges.has(derivedKey)) this.charges.set(derivedKey, 1);
    if (this.mode === 'fail') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    if (this.mode === 'hang') await new Promise<void>((resolve) => (this.#release = resolve));
    return { id: `ch_${derivedKey.slice(0, 10)}` };
  }
  release() {
    this.#release?.();
  }
}

function capture(
  provider: Provider,
  overrides: Partial<EffectDefinition<{ amount: number }, { id: string }>> = {},
) {
  return defineEffect<{ amount: number }, { id: string }>({
    name: 'test.capture',
    deadlineMs: 60_000,
    baseDelayMs: 1_000,
    maxDelayMs: 8_000,
    run: ({ derivedKey }) => provider.charge(derivedKey),
    onSucceeded: async (tx, result, { key: k }) => {
      await tx.query(`insert into "${db.schema}".ledger values ($1, $2, null)`, [k, result.id]);
    },
    onFailed: async (tx, failure, { key: k }) => {
      await tx.query(`insert into "${db.schema}".ledger values ($1, 'none', $2)`, [k, failure.reason]);
    },
    ...overrides,
  });
}

function outbox(definition: EffectDefinition<{ amount: number }, { id: string }>): Effects {
  return createEffects({
    sql: db.sql,
    schema: db.schema,
    effects: [definition],
    now,
    random: () => 0.5,
    budget: false,
  });
}

/**
 * An outbox over the test database whose first claim commits and then fails as a dropped connection
 * does (a failover's lost reply): the claim's UPDATE is done, the worker sees only an error.
 */
function lossyOutbox(provider: Provider) {
  const lose = { left: 1 };
  const sql = new Proxy(db.sql, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return async (...args: Parameters<typeof db.sql.query>) => {
        const result = await target.query(...args);
        const s = args[0];
        const claim = typeof s === 'object' && s !== null && /effects_claim/.test(String(s.name));
        if (claim && lose.left > 0) {
          lose.left--;
          throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
        }
        return result;
      };
    },
  });
  const effects = createEffects({
    sql,
    schema: db.schema,
    effects: [capture(provider)],
    now,
    random: () => 0.5,
    budget: false,
  });
  return { effects, lose };
}

const enqueue = (effects: Effects, k: string) =>
  db.sql.transaction((tx) =>
    effects.enqueue(tx, { tenant: 't', effect: 'test.capture', key: k, payload: { amount: 5 } }),
  );
const find = (effects: Effects, k: string) =>
  effects.find(db.sql, { tenant: 't', effect: 'test.capture', key: k });

describe('the effects outbox', () => {
  test('an effect exists if and only if its transaction commits; enqueueing it again is the same effect', async () => {
    const effects = outbox(capture(new Provider()));
    const rolledBack = key();
    await assert.rejects(
      db.sql.transaction(async (tx) => {
        await effects.enqueue(tx, {
          tenant: 't',
          effect: 'test.capture',
          key: rolledBack,
          payload: { amount: 1 },
        });
        throw new Error('the business write failed');
      }),
      /business write failed/,
    );
    assert.equal(await find(effects, rolledBack), undefined);
    const k = key();
    const first = await enqueue(effects, k);
    const second = await enqueue(effects, k);
    assert.equal(first.created, true);
    assert.deepEqual(second, { id: first.id, created: false });
    assert.equal((await find(effects, k))?.state, 'pending');
    await assert.rejects(
      db.sql.transaction((tx) => effects.enqueue(tx, { tenant: 't', effect: 'nope', key: k, payload: {} })),
      /no effect named "nope"/,
    );
    await effects.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 }).runOnce();
    assert.equal((await find(effects, k))?.state, 'succeeded');
  });

  test('the worker runs it with deriveKey(key, name) and records the result with the follow-up write', async () => {
    const provider = new Provider();
    const effects = outbox(capture(provider));
    const k = key();
    await enqueue(effects, k);
    const outcomes: EffectOutcome[] = [];
    const worker = effects.worker({
      leaseMs: LEASE,
      attemptTimeoutMs: 5_000,
      onOutcome: (o) => outcomes.push(o),
    });
    assert.equal(await worker.runOnce(), 1);
    assert.deepEqual(provider.calls, [deriveKey(k, 'test.capture')]);
    const record = await find(effects, k);
    assert.equal(record?.state, 'succeeded');
    assert.deepEqual(record?.result, { id: `ch_${deriveKey(k, 'test.capture').slice(0, 10)}` });
    assert.equal(record?.attempts, 1);
    assert.deepEqual(
      (await ledgerRows(k)).map((r) => r.charge),
      [record?.result && (record.result as { id: string }).id],
    );
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['succeeded'],
    );
    assert.equal(await worker.runOnce(), 0, 'a finished effect is not claimed again');
  });

  test('the follow-up write failing rolls the result back: the effect runs again with the same key, one charge, one ledger row', async () => {
    const provider = new Provider();
    let failWrite = true;
    const effects = outbox(
      capture(provider, {
        onSucceeded: async (tx, result, { key: k }) => {
          await tx.query(`insert into "${db.schema}".ledger values ($1, $2, null)`, [k, result.id]);
          if (failWrite) throw new Error('the follow-up write failed');
        },
      }),
    );
    const k = key();
    await enqueue(effects, k);
    const worker = effects.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 });
    await worker.runOnce();
    const retried = await find(effects, k);
    assert.equal(retried?.state, 'pending');
    assert.match(retried?.lastError ?? '', /follow-up write failed/);
    assert.equal((await ledgerRows(k)).length, 0, 'the follow-up write rolled back with the result');
    failWrite = false;
    clock = Date.parse(retried!.runAt);
    await worker.runOnce();
    assert.equal((await find(effects, k))?.state, 'succeeded');
    assert.deepEqual(provider.calls, [deriveKey(k, 'test.capture'), deriveKey(k, 'test.capture')]);
    assert.equal(provider.charges.get(deriveKey(k, 'test.capture')), 1);
    assert.equal((await ledgerRows(k)).length, 1);
  });

  test('a worker dies between running the effect and recording it: after its lease the next worker runs it with the same derived key; the dead one is fenced off', async () => {
    const provider = new Provider();
    const effects = outbox(capture(provider));
    const k = key();
    await enqueue(effects, k);
    const outcomes: EffectOutcome[] = [];
    const dead = effects.worker({
      leaseMs: LEASE,
      attemptTimeoutMs: 5_000,
      onOutcome: (o) => outcomes.push(o),
    });
    provider.mode = 'hang';
    // The first worker charges, then never returns (its process is gone, as far as the outbox knows).
    const abandoned = dead.runOnce();
    while (provider.calls.length === 0) await new Promise((r) => setTimeout(r, 5));
    assert.equal(provider.charges.get(deriveKey(k, 'test.capture')), 1);
    const next = effects.worker({
      leaseMs: LEASE,
      attemptTimeoutMs: 5_000,
      onOutcome: (o) => outcomes.push(o),
    });
    assert.equal(await next.runOnce(), 0, 'not while the lease holds');
    clock += LEASE;
    provider.mode = 'ok';
    assert.equal(await next.runOnce(), 1);
    assert.deepEqual(provider.calls, [deriveKey(k, 'test.capture'), deriveKey(k, 'test.capture')]);
    assert.equal(
      provider.charges.get(deriveKey(k, 'test.capture')),
      1,
      'the provider deduplicated the re-run',
    );
    const record = await find(effects, k);
    assert.equal(record?.state, 'succeeded');
    assert.equal(record?.attempts, 2);
    // The first worker comes back: its record is refused, its follow-up write rolled back.
    provider.release();
    await abandoned;
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['succeeded', 'lost'],
    );
    assert.equal((await ledgerRows(k)).length, 1);
  });

  test('a failing effect retries with full-jitter backoff, honours Retry-After, and ends failed at its deadline with its onFailed write', async () => {
    const provider = new Provider();
    const effects = outbox(capture(provider));
    const k = key();
    const start = clock;
    await enqueue(effects, k);
    const outcomes: EffectOutcome[] = [];
    const worker = effects.worker({
      leaseMs: LEASE,
      attemptTimeoutMs: 5_000,
      onOutcome: (o) => outcomes.push(o),
    });
    provider.mode = 'fail';
    // random() = 0.5: half of min(8000, 1000 * 2^retry): 500, 1000, 2000, 4000, 4000, …
    const expected = [500, 1000, 2000, 4000];
    for (const delay of expected) {
      const before = clock;
      assert.equal(await worker.runOnce(), 1);
      const record = await find(effects, k);
      assert.equal(record?.state, 'pending');
      assert.equal(Date.parse(record!.runAt) - before, delay);
      assert.match(record?.lastError ?? '', /^ECONNRESET: socket hang up/);
      assert.equal(await worker.runOnce(), 0, 'not before its time');
      clock = Date.parse(record!.runAt);
    }
    // The other side says 120 s: not before then; and 120 s lies past the 60 s deadline: given up now.
    provider.mode = 'later';
    await worker.runOnce();
    const failed = await find(effects, k);
    assert.equal(failed?.state, 'failed');
    assert.equal(failed?.attempts, 5);
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['retried', 'retried', 'retried', 'retried', 'failed'],
    );
    assert.deepEqual(await ledgerRows(k), [{ charge: 'none', note: 'deadline_exceeded' }]);
    assert.ok(clock - start < 60_000);
    assert.equal(await worker.runOnce(), 0, 'a failed effect is not claimed again');

    // Retry-After within the deadline: the next attempt waits for it, not the shorter backoff.
    const k2 = key();
    const patient = createEffects({
      sql: db.sql,
      schema: db.schema,
      effects: [capture(provider, { deadlineMs: 600_000 })],
      now,
      random: () => 0.5,
      budget: false,
    });
    await enqueue(patient, k2);
    await patient.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 }).runOnce();
    const waiting = await find(effects, k2);
    assert.equal(waiting?.state, 'pending');
    assert.equal(Date.parse(waiting!.runAt) - clock, 120_000);
    clock = Date.parse(waiting!.runAt);
    provider.mode = 'ok';
    await patient.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 }).runOnce();
    assert.equal((await find(effects, k2))?.state, 'succeeded');
  });

  test('an EffectFailedError ends it failed at once; a stuck effect found after its deadline is failed without running', async () => {
    const provider = new Provider();
    const effects = outbox(capture(provider));
    const worker = effects.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 });
    const k = key();
    await enqueue(effects, k);
    provider.mode = 'reject';
    await worker.runOnce();
    const rejected = await find(effects, k);
    assert.equal(rejected?.state, 'failed');
    assert.equal(rejected?.lastError, 'provider_rejected');
    assert.deepEqual(await ledgerRows(k), [{ charge: 'none', note: 'permanent' }]);

    const late = key();
    await enqueue(effects, late);
    clock += 61_000;
    provider.mode = 'ok';
    const calls = provider.calls.length;
    await worker.runOnce();
    assert.equal((await find(effects, late))?.state, 'failed');
    assert.equal(provider.calls.length, calls, 'not run after its deadline');
  });

  test('a result holding NUL bytes is stored (NUL replaced), not refused for ever', async () => {
    const hostile = defineEffect<{ amount: number }, { id: string }>({
      name: 'test.capture',
      run: async () => ({ id: 'ch_\u0000x' }),
    });
    const effects = outbox(hostile);
    const k = key();
    await enqueue(effects, k);
    await effects.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 }).runOnce();
    const record = await find(effects, k);
    assert.equal(record?.state, 'succeeded');
    assert.deepEqual(record?.result, { id: 'ch_\ufffdx' });
  });

  test('a claim whose answer is lost (committed, then the connection dropped) is given back before the next claim, not left to its lease', async () => {
    const provider = new Provider();
    const { effects } = lossyOutbox(provider);
    const k = key();
    await enqueue(effects, k);
    const worker = effects.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 });
    await assert.rejects(worker.runOnce(), /Connection terminated unexpectedly/);
    assert.equal((await find(effects, k))?.state, 'running', 'the lost claim committed: leased, unseen');
    // The same instant: without the give-back the effect would wait LEASE ms for its lease to lapse.
    assert.equal(await worker.runOnce(), 1);
    const record = await find(effects, k);
    assert.equal(record?.state, 'succeeded');
    assert.equal(record?.attempts, 1, 'the lost claim did not count an attempt');
    assert.deepEqual(provider.calls.length, 1);
  });

  test("giving back touches only the lost claim's effects: another worker's claim at the same instant stays its own", async () => {
    const { effects } = lossyOutbox(new Provider());
    const mine = key();
    const theirs = key();
    await enqueue(effects, mine);
    const worker = effects.worker({ leaseMs: LEASE, attemptTimeoutMs: 5_000 });
    await assert.rejects(worker.runOnce(), /Connection terminated unexpectedly/);
    // Another worker claimed `theirs` at the same instant: the same lease end, its own owner.
    await enqueue(effects, theirs);
    const owner = randomUUID();
    await db.sql.query(
      `update "${db.schema}".idempotency_effects set state = 'running', owner = $2::uuid, attempts = attempts + 1,
              run_at = $3::timestamptz where tenant = 't' and key = $1`,
      [theirs, owner, new Date(clock + LEASE).toISOString()],
    );
    assert.equal(await worker.runOnce(), 1, 'only the lost claim came back, and ran');
    assert.equal((await find(effects, mine))?.state, 'succeeded');
    const other = await find(effects, theirs);
    assert.equal(other?.state, 'running', "the other worker's effect is still its own");
    assert.equal(other?.attempts, 1);
  });

  test('stop() gives back a lost claim it has not given back yet', async () => {
    const { effects, lose } = lossyOutbox(new Provider());
    const k = key();
    await enqueue(effects, k);
    const errors: unknown[] = [];
    const worker = effects.worker({
      leaseMs: LEASE,
      attemptTimeoutMs: 5_000,
      intervalMs: 60_000,
      onError: (e) => errors.push(e),
    });
    worker.start();
    const until = Date.now() + 5000;
    while (lose.left > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    await worker.stop();
    assert.equal(errors.length, 1, 'the lost claim was reported');
    const record = await find(effects, k);
    assert.equal(record?.state, 'pending');
    assert.equal(record?.attempts, 0);
  });

  test('start / stop: the loop runs what is enqueued and stop waits for the effect under way', async () => {
    const provider = new Provider();
    const effects = outbox(capture(provider));
    const keys = [key(), key(), key()];
    for (const k of keys) await enqueue(effects, k);
    const done: EffectOutcome[] = [];
    const worker = effects.worker({
      concurrency: 2,
      intervalMs: 10,
      leaseMs: LEASE,
      attemptTimeoutMs: 5_000,
      onOutcome: (o) => done.push(o),
    });
    worker.start();
    const until = Date.now() + 10_000;
    while (done.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await worker.stop();
    for (const k of keys) assert.equal((await find(effects, k))?.state, 'succeeded');
  });
});

describe('concurrent workers (PostgreSQL)', () => {
  test('four workers on their own pools never run one effect twice at once, and run each once', {
    skip: needsPostgres,
  }, async () => {
    const N = 200;
    const running = new Set<string>();
    const runs = new Map<string, number>();
    let overlaps = 0;
    const definition = defineEffect<{ i: number }, { ok: true }>({
      name: 'test.concurrent',
      run: async ({ id }) => {
        if (running.has(id)) overlaps++;
        running.add(id);
        runs.set(id, (runs.get(id) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, Math.random() * 3));
        running.delete(id);
        return { ok: true };
      },
    });
    const pools = Array.from({ length: 4 }, () => db.connect(4));
    const outboxes = pools.map((sql) => createEffects({ sql, schema: db.schema, effects: [definition] }));
    await db.sql.transaction(async (tx) => {
      for (let i = 0; i < N; i++)
        await outboxes[0]!.enqueue(tx, { tenant: 't', effect: definition, key: `c-${i}`, payload: { i } });
    });
    const workers = outboxes.map((o) => o.worker({ concurrency: 8, intervalMs: 5 }));
    for (const w of workers) w.start();
    const until = Date.now() + 30_000;
    const left = async () =>
      Number(
        (
          await db.sql.query<{ n: string }>(
            `select count(*)::text as n from "${db.schema}".idempotency_effects where name = 'test.concurrent' and state <> 'succeeded'`,
          )
        ).rows[0]!.n,
      );
    while ((await left()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(workers.map((w) => w.stop()));
    assert.equal(await left(), 0);
    assert.equal(overlaps, 0);
    assert.equal(runs.size, N);
    assert.deepEqual([...new Set(runs.values())], [1]);
  });
});
