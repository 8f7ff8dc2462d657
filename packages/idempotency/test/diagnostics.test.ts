// The package's diagnostics channels (src/diagnostics.ts, the README's table): a subscriber receives
// each message, with the shape the table gives, without any callback option set. PGlite, and
// PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { Hono } from 'hono';
import { createEffects, defineEffect, type EffectOutcome } from '../src/effects/index.js';
import { type IdempotencyVariables, idempotency } from '../src/hono.js';
import { CHANNELS, Idempotency, type IdempotencyWarning, type StoredInfo } from '../src/index.js';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});
after(() => db.close());

/** Subscribes to `name` while `fn` runs; the messages received. */
async function heard<T>(name: string, fn: () => Promise<unknown>): Promise<T[]> {
  const got: T[] = [];
  const listener = (message: unknown) => got.push(message as T);
  diagnosticsChannel.subscribe(name, listener);
  try {
    await fn();
  } finally {
    diagnosticsChannel.unsubscribe(name, listener);
  }
  return got;
}

test('the channel names follow surety:<package>:<event>', () => {
  assert.deepEqual(Object.values(CHANNELS), [
    'surety:idempotency:outcome',
    'surety:idempotency:stored',
    'surety:idempotency:warning',
    'surety:idempotency:effect',
  ]);
});

test('outcome, stored and warning: one message each, as the table says', async () => {
  const engine = new Idempotency({
    sql: db.sql,
    schema: db.schema,
    warnOnEmptyTransaction: true,
    onWarning: () => {}, // the channel still hears it
  });
  await engine.migrate();
  const app = new Hono<{ Variables: IdempotencyVariables }>();
  app.post('/things', idempotency({ engine, tenant: () => 'acme' }), (c) => c.json({ ok: true }, 201));
  const send = () =>
    app.request('/things', { method: 'POST', headers: { 'idempotency-key': 'diag-1' }, body: '{}' });

  const warnings: IdempotencyWarning[] = [];
  const stored: StoredInfo[] = [];
  const outcomes = await heard<{ outcome: string; tenant: string }>(CHANNELS.outcome, () =>
    heard<StoredInfo>(CHANNELS.stored, async () => {
      warnings.push(
        ...(await heard<IdempotencyWarning>(CHANNELS.warning, async () => {
          assert.equal((await send()).status, 201);
          assert.equal((await send()).status, 201);
        })),
      );
    }).then((s) => stored.push(...s)),
  );
  assert.deepEqual(outcomes, [
    { outcome: 'executed', tenant: 'acme' },
    { outcome: 'replayed', tenant: 'acme' },
  ]);
  assert.equal(stored.length, 1, 'stored once: the replay stores nothing');
  assert.equal(stored[0]!.tenant, 'acme');
  assert.equal(stored[0]!.encoding, 'text');
  assert.equal(stored[0]!.bodyBytes, '{"ok":true}'.length);
  assert.equal(warnings.length, 1, 'the handler wrote nothing: one warning');
  assert.equal(warnings[0]!.code, 'SURETY_IDEMPOTENCY_EMPTY_TRANSACTION');
});

test('effect: an EffectOutcome per attempt of the outbox worker', async () => {
  const effects = createEffects({
    sql: db.sql,
    schema: db.schema,
    effects: [
      defineEffect<{ n: number }, { ok: true }>({ name: 'diag.ping', run: async () => ({ ok: true }) }),
    ],
    budget: false,
  });
  await effects.migrate();
  await db.sql.transaction((tx) =>
    effects.enqueue(tx, { tenant: 't', effect: 'diag.ping', key: 'diag-effect', payload: { n: 1 } }),
  );
  const worker = effects.worker({ leaseMs: 10_000, attemptTimeoutMs: 5_000 });
  const got = await heard<EffectOutcome>(CHANNELS.effect, () => worker.runOnce());
  assert.equal(got.length, 1);
  assert.equal(got[0]!.name, 'diag.ping');
  assert.equal(got[0]!.kind, 'succeeded');
  assert.equal(got[0]!.attempt, 1);
});
