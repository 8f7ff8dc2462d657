// The semantics table every ORM adapter of @surety/db passes, in each direction, on PGlite and on
// PostgreSQL (DATABASE_URL): the Idempotency-Key record, the ORM's business write, the outbox event
// and the inbox row commit together or not at all. An adapter's test file calls `describeSemantics`
// once per direction with what differs: the `Sql` the engine runs on and how the ORM writes one
// payment inside the handler's transaction. Tests of @surety/db's adapters use the engines above
// it (test code only; src never does).
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import type { Sql, Tx } from '@surety/db';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import { createIdempotency, type Idempotency, type IdempotencyWarning } from '@surety/idempotency';
import { createInbox } from '@surety/webhook-verify/inbox';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';

/** A test database with the schema and the `payments` table every ORM test writes to. */
export async function paymentsDatabase<D extends TestDatabase>(
  create: () => Promise<D> = createTestDatabase as () => Promise<D>,
): Promise<D> {
  const db = await create();
  await db.sql.query(`create schema "${db.schema}"`);
  await db.sql.query(`create table "${db.schema}".payments (id text primary key, cents int not null)`);
  return db;
}

/** The ids of the committed payments, in order. */
export const paymentIds = async (db: TestDatabase): Promise<string[]> =>
  (await db.sql.query<{ id: string }>(`select id from "${db.schema}".payments order by id`)).rows.map(
    (r) => r.id,
  );

export interface Payment {
  id: string;
  cents: number;
}

export interface SemanticsCase {
  /** What the engine, the inbox and `publish()`'s transactions run on. */
  sql: Sql;
  /** Writes one payment through the ORM, inside the handler's transaction `tx`. */
  insertPayment(tx: Tx, payment: Payment): Promise<void>;
  /**
   * The naive mistake, for the guard's test (PostgreSQL only: on PGlite's one connection the write
   * would wait for the open transaction): the payment written through the application's own ORM
   * instance, on another connection.
   */
  insertPaymentNaively?(payment: Payment): Promise<void>;
  close(): Promise<void>;
}

export interface SemanticsOptions {
  /** e.g. "kysely: Surety owns the transaction". */
  name: string;
  /** Skips the whole table with this reason (a backend the ORM has no driver for). */
  skip?: string | false;
  /** Builds the case on the test database; `payments` is `"<schema>".payments (id text, cents int)`. */
  setup(db: TestDatabase): Promise<SemanticsCase>;
  /** The test database, when the ORM must share it (its own PGlite instance). @default createTestDatabase */
  database?: () => Promise<TestDatabase>;
}

/** One describe block: the semantics table for one adapter in one direction. */
export function describeSemantics(options: SemanticsOptions): void {
  describe(options.name, { skip: options.skip ?? false }, () => {
    let db: TestDatabase;
    let c: SemanticsCase;
    let idem: Idempotency;
    let webhooks: Webhooks;
    const warnings: IdempotencyWarning[] = [];
    const receivers: { close(): Promise<void> }[] = [];
    let n = 0;
    const key = () => `k${++n}-${Date.now()}`;
    const ok = (body: unknown) => ({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

    before(async () => {
      db = await paymentsDatabase(options.database);
      // Migrations on Surety's own Sql; the engines under test then run on the adapter's.
      await createIdempotency({ sql: db.sql, schema: db.schema }).migrate();
      await new Webhooks({ sql: db.sql, schema: db.schema }).migrate();
      await createInbox({ schema: db.schema }).migrate(db.sql);
      c = await options.setup(db);
      // …and again on the adapter's Sql: nothing left to apply, but its scripts run through it.
      await createIdempotency({ sql: c.sql, schema: db.schema }).migrate();
      await createInbox({ schema: db.schema }).migrate(c.sql);
      idem = createIdempotency({
        sql: c.sql,
        schema: db.schema,
        warnOnEmptyTransaction: true,
        onWarning: (w) => warnings.push(w),
      });
      webhooks = new Webhooks({
        sql: db.sql,
        schema: db.schema,
        allowHttp: true,
        allowList: parseAllowList('127.0.0.1/32'),
      });
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.stop()));
      await Promise.all(receivers.splice(0).map((r) => r.close()));
    });
    after(async () => {
      await c?.close();
      await db?.close();
    });

    const count = async (table: string, where = 'true', params: unknown[] = []) =>
      Number(
        (
          await db.sql.query<{ n: string }>(
            `select count(*)::text as n from "${db.schema}".${table} where ${where}`,
            params,
          )
        ).rows[0]!.n,
      );
    const workers: DeliveryWorker[] = [];
    const worker = () => {
      const w = new DeliveryWorker({
        webhooks,
        listen: false,
        random: () => 0,
        timeoutMs: 2000,
        guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
      });
      workers.push(w);
      return w;
    };
    const endpoint = async (tenant: string) => {
      const rx = await startReceiver();
      receivers.push(rx);
      await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      return rx;
    };

    test('success: exactly one business row and one key row; a retry replays without running', async () => {
      const k = key();
      const req = { tenant: 't', key: k, fingerprint: 'fp' };
      let runs = 0;
      const handler = async (tx: Tx) => {
        runs++;
        await c.insertPayment(tx, { id: `pay_${k}`, cents: 1999 });
        return ok({ id: `pay_${k}` });
      };
      const first = await idem.execute(req, handler);
      assert.equal(first.kind, 'executed');
      assert.deepEqual(await idem.execute(req, handler), {
        kind: 'replayed',
        response: ok({ id: `pay_${k}` }),
      });
      assert.equal(runs, 1);
      assert.equal(await count('payments', 'id = $1', [`pay_${k}`]), 1);
      assert.equal(await count('idempotency_keys', 'key = $1', [k]), 1);
    });

    test("a throw after the ORM's write: zero business rows, zero key rows, no event", async () => {
      const k = key();
      const tenant = `t-throw-${k}`;
      const rx = await endpoint(tenant);
      await assert.rejects(
        idem.execute({ tenant, key: k, fingerprint: 'fp' }, async (tx) => {
          await c.insertPayment(tx, { id: `pay_${k}`, cents: 500 });
          await webhooks.publish(tx, { tenant, type: 'payment.created', data: { id: `pay_${k}` } });
          throw new Error('the card network timed out');
        }),
        /card network/,
      );
      assert.equal(await count('payments', 'id = $1', [`pay_${k}`]), 0);
      assert.equal(await count('idempotency_keys', 'key = $1', [k]), 0);
      assert.equal(await count('webhook_events', 'tenant = $1', [tenant]), 0);
      assert.equal(await worker().drain(), 0);
      assert.equal(rx.received.length, 0);
    });

    test('ten concurrent requests with one key: one business row, the rest 409 or a replay', {
      skip: needsPostgres,
    }, async () => {
      const k = key();
      const req = { tenant: 't', key: k, fingerprint: 'fp' };
      let runs = 0;
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          idem.execute(req, async (tx) => {
            runs++;
            await c.insertPayment(tx, { id: `pay_${k}_${i}`, cents: i });
            // hold the transaction open a little so that the others arrive while it is in flight
            await new Promise((r) => setTimeout(r, 30));
            return ok({ run: i });
          }),
        ),
      );
      const kinds = outcomes.map((o) => o.kind).sort();
      assert.equal(kinds.filter((kind) => kind === 'executed').length, 1, kinds.join());
      assert.ok(
        kinds.every((kind) => kind === 'executed' || kind === 'in_flight' || kind === 'replayed'),
        kinds.join(),
      );
      assert.equal(runs, 1);
      assert.equal(await count('payments', 'id like $1', [`pay_${k}_%`]), 1);
      assert.equal(await count('idempotency_keys', 'key = $1', [k]), 1);
    });

    test("an event published in the ORM's transaction is delivered only after COMMIT", async () => {
      const k = key();
      const tenant = `t-event-${k}`;
      const rx = await endpoint(tenant);
      const outcome = await idem.execute({ tenant, key: k, fingerprint: 'fp' }, async (tx) => {
        await c.insertPayment(tx, { id: `pay_${k}`, cents: 700 });
        const published = await webhooks.publish(tx, {
          tenant,
          type: 'payment.created',
          data: { id: `pay_${k}` },
        });
        assert.equal(published.deliveries, 1);
        // Before COMMIT a worker on another connection finds nothing (PGlite has one connection:
        // a worker there would wait for this transaction).
        if (db.backend === 'pg') assert.equal(await worker().drain(), 0);
        return ok({ id: `pay_${k}` });
      });
      assert.equal(outcome.kind, 'executed');
      assert.equal(rx.received.length, 0);
      assert.equal(await worker().drain(), 1);
      assert.equal(rx.received.length, 1);
      assert.equal(JSON.parse(rx.received[0]!.body).data.id, `pay_${k}`);
    });

    test("the inbox in the ORM's transaction: a redelivery is a duplicate; a failure lets it run again", async () => {
      const inbox = createInbox({ schema: db.schema, consumer: 'orm-test' });
      const event = { id: `evt_${key()}` };
      const apply = (fail: boolean) =>
        c.sql.transaction((tx) =>
          inbox.receive(tx, event, async (tx) => {
            await c.insertPayment(tx, { id: `pay_${event.id}`, cents: 1 });
            if (fail) throw new Error('handler failed');
            return 'applied';
          }),
        );
      await assert.rejects(apply(true), /handler failed/);
      assert.equal(await count('webhook_inbox', 'event_id = $1', [event.id]), 0);
      assert.deepEqual(await apply(false), { kind: 'processed', duplicate: false, result: 'applied' });
      assert.deepEqual(await apply(false), { kind: 'duplicate', duplicate: true });
      assert.equal(await count('payments', 'id = $1', [`pay_${event.id}`]), 1);
    });

    test('the naive-use guard: silent on the correct route, fires on the naive one', async (t) => {
      const k = key();
      warnings.length = 0;
      await idem.execute({ tenant: 't', key: k, fingerprint: 'fp' }, async (tx) => {
        await c.insertPayment(tx, { id: `pay_${k}`, cents: 1 });
        return ok({});
      });
      assert.equal(warnings.length, 0, 'no warning for a write through the transaction');
      if (!c.insertPaymentNaively || db.backend !== 'pg') {
        t.diagnostic("the naive route needs a second connection (PostgreSQL) and the app's own ORM instance");
        return;
      }
      const naive = c.insertPaymentNaively;
      await idem.execute({ tenant: 't', key: `${k}-naive`, fingerprint: 'fp' }, async () => {
        await naive({ id: `pay_${k}_naive`, cents: 1 });
        return ok({});
      });
      assert.equal(warnings.length, 1);
      assert.equal(warnings[0]!.code, 'SURETY_IDEMPOTENCY_EMPTY_TRANSACTION');
      assert.match(warnings[0]!.message, /docs\/orm\.md/);
    });
  });
}
