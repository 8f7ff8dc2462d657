// The atomic promise through an ORM, the same table for every ORM and each direction (Surety owns the
// transaction; the ORM owns it): a success commits one business row and one key row; a throw after the
// ORM's write leaves neither, and no event; ten concurrent requests with one key write one row; an
// event published in the transaction is delivered only after COMMIT; the inbox records with it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Sql, Tx } from '@surety/db';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { Idempotency, type Outcome, type StoredResponse } from '@surety/idempotency';
import { createInbox, type Inbox, type Received } from '@surety/webhook-verify/inbox';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';

/** What each ORM's test gives the table: the database, and one direction's way to run a request. */
export interface OrmContext {
  db: TestDatabase;
  /** The schema's `orders (id serial, note text unique)`, written through the ORM. */
  table: string;
  engine: Idempotency;
  webhooks: Webhooks;
  inbox: Inbox;
  tenant: string;
}

export interface RunInput {
  key: string;
  note: string;
  /** Throw after the ORM's write and the publish. */
  fail?: boolean;
  /** Answer with this status instead of 201 (a 5xx is rolled back by the engine). */
  status?: number;
  /** Awaited after the publish, with the transaction still open. */
  pause?: () => Promise<void>;
}

/** A direction of one ORM: how a keyed request and an inbox delivery run through it. */
export interface Direction {
  /**
   * One keyed request: inside the transaction, insert `note` into `orders` through the ORM, publish
   * `order.created` with `{ note }`, await `pause`, throw if `fail`, and answer `created(note)`.
   */
  run(input: RunInput): Promise<Outcome>;
  /** The inbox in the same transaction: record `id`, then insert `note` through the ORM (throw if `fail`). */
  receive(input: { id: string; note: string; fail?: boolean }): Promise<Received<void>>;
  /** Closes what the direction opened (the ORM's pool). */
  close(): Promise<void>;
}

export const created = (note: string, status = 201): StoredResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ note }),
});

/** Publishes the test's event on a Surety Tx (the handler's, or a joined one). */
export const publishCreated = (ctx: OrmContext, tx: Tx, note: string) =>
  ctx.webhooks.publish(tx, { tenant: ctx.tenant, type: 'order.created', data: { note } });

/**
 * Registers the table for `name`: `setup` builds each direction from the shared context. PostgreSQL
 * only (the ORMs here have no PGlite driver, and the concurrency test needs several connections).
 */
export function ormScenarios(
  name: string,
  directions: Record<string, (ctx: OrmContext) => Promise<Direction>>,
): void {
  describe(name, { skip: needsPostgres }, () => {
    let ctx: OrmContext;
    let rx: Awaited<ReturnType<typeof startReceiver>>;
    let worker: DeliveryWorker;
    before(async () => {
      const db = await createTestDatabase();
      const engine = new Idempotency({ sql: db.sql, schema: db.schema });
      await engine.migrate();
      const webhooks = new Webhooks({
        sql: db.sql,
        schema: db.schema,
        allowHttp: true,
        allowList: parseAllowList('127.0.0.1/32'),
      });
      await webhooks.migrate();
      const inbox = createInbox({ schema: db.schema, consumer: 'orders' });
      await inbox.migrate(db.sql);
      const table = `"${db.schema}".orders`;
      await db.sql.query(`create table ${table} (id serial primary key, note text not null unique)`);
      const tenant = 'acme';
      rx = await startReceiver();
      await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      worker = new DeliveryWorker({
        webhooks,
        listen: false,
        random: () => 0,
        timeoutMs: 2000,
        guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
      });
      ctx = { db, table, engine, webhooks, inbox, tenant };
    });
    after(async () => {
      await worker?.stop();
      await rx?.close();
      await ctx?.db.close();
    });

    const count = async (sql: Sql, text: string, params: unknown[]) =>
      Number((await sql.query<{ n: string }>(`select count(*)::text as n from ${text}`, params)).rows[0]!.n);
    const orders = (note: string) => count(ctx.db.sql, `${ctx.table} where note = $1`, [note]);
    const keys = (key: string) =>
      count(ctx.db.sql, `"${ctx.db.schema}".idempotency_keys where key = $1`, [key]);
    const events = (note: string) =>
      count(ctx.db.sql, `"${ctx.db.schema}".webhook_events where data::jsonb->>'note' = $1`, [note]);
    const inboxed = (id: string) =>
      count(ctx.db.sql, `"${ctx.db.schema}".webhook_inbox where event_id = $1`, [id]);

    for (const [direction, make] of Object.entries(directions)) {
      describe(direction, () => {
        let d: Direction;
        before(async () => {
          d = await make(ctx);
        });
        after(() => d?.close());

        test('success: one business row, one key row, one event; the retry replays', async () => {
          const key = randomUUID();
          const note = `ok-${key}`;
          const outcome = await d.run({ key, note });
          assert.equal(outcome.kind, 'executed');
          assert.equal(await orders(note), 1);
          assert.equal(await keys(key), 1);
          assert.equal(await events(note), 1);
          const again = await d.run({ key, note });
          assert.equal(again.kind, 'replayed');
          assert.equal(await orders(note), 1);
        });

        test('a throw after the ORM write: no business row, no key, no event', async () => {
          const key = randomUUID();
          const note = `fail-${key}`;
          await assert.rejects(d.run({ key, note, fail: true }), /after the write/);
          assert.equal(await orders(note), 0);
          assert.equal(await keys(key), 0);
          assert.equal(await events(note), 0);
          // The key was not burnt: the retry runs.
          assert.equal((await d.run({ key, note })).kind, 'executed');
          assert.equal(await orders(note), 1);
        });

        test('a 5xx answer rolls the ORM write back and stores no key', async () => {
          const key = randomUUID();
          const note = `5xx-${key}`;
          const outcome = await d.run({ key, note, status: 503 });
          assert.deepEqual([outcome.kind, 'stored' in outcome && outcome.stored], ['executed', false]);
          assert.equal(await orders(note), 0);
          assert.equal(await keys(key), 0);
          assert.equal(await events(note), 0);
        });

        test('ten concurrent requests with one key: one business row, the rest 409 or a replay', async () => {
          const key = randomUUID();
          const note = `race-${key}`;
          const results = await Promise.allSettled(Array.from({ length: 10 }, () => d.run({ key, note })));
          const kinds = results.map((r) => (r.status === 'fulfilled' ? r.value.kind : String(r.reason)));
          assert.equal(kinds.filter((k) => k === 'executed').length, 1, kinds.join());
          assert.ok(
            kinds.every((k) => k === 'executed' || k === 'replayed' || k === 'in_flight'),
            kinds.join(),
          );
          assert.equal(await orders(note), 1);
          assert.equal(await keys(key), 1);
        });

        test('an event published in the transaction is delivered only after COMMIT', async () => {
          const key = randomUUID();
          const note = `event-${key}`;
          await worker.drain(); // what the tests before left
          const before = rx.received.length;
          let drainedInside = -1;
          await d.run({
            key,
            note,
            pause: async () => {
              drainedInside = await worker.drain();
            },
          });
          assert.equal(drainedInside, 0, 'nothing to deliver while the transaction is open');
          assert.equal(rx.received.length, before);
          assert.equal(await worker.drain(), 1);
          const got = rx.received.slice(before).map((r) => JSON.parse(r.body).data.note);
          assert.deepEqual(got, [note]);
        });

        test('the inbox records in the same transaction: duplicates skipped, a failure rolled back', async () => {
          const id = `evt_${randomUUID()}`;
          const note = `inbox-${id}`;
          await assert.rejects(d.receive({ id, note, fail: true }), /after the write/);
          assert.equal(await inboxed(id), 0);
          assert.equal(await orders(note), 0);
          assert.deepEqual(await d.receive({ id, note }), {
            kind: 'processed',
            duplicate: false,
            result: undefined,
          });
          assert.deepEqual(await d.receive({ id, note }), { kind: 'duplicate', duplicate: true });
          assert.equal(await inboxed(id), 1);
          assert.equal(await orders(note), 1);
        });
      });
    }
  });
}

/** The error a failing handler throws after its write. */
export const afterTheWrite = () => new Error('boom after the write');
