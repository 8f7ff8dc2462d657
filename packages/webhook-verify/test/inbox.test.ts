// The durable inbox on PGlite, or on PostgreSQL when DATABASE_URL is set (the concurrent tests
// need several connections and run only there).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Sql, Tx } from '@surety/db';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { webhooks } from '../src/fastify.js';
import { createInbox, type Inbox, type Received } from '../src/inbox.js';
import { sign } from '../src/index.js';

let db: TestDatabase;
let inbox: Inbox;
let n = 0;
const eventId = () => `evt_${++n}_${Date.now()}`;

before(async () => {
  db = await createTestDatabase();
  inbox = createInbox({ schema: db.schema });
  await inbox.migrate(db.sql);
  await db.sql.query(`create table "${db.schema}".effects (event_id text not null, consumer text not null)`);
});
after(() => db.close());

const effect = (tx: Tx, id: string, consumer = '') =>
  tx.query(`insert into "${db.schema}".effects (event_id, consumer) values ($1, $2)`, [id, consumer]);

async function effects(id: string): Promise<number> {
  const { rows } = await db.sql.query<{ n: string }>(
    `select count(*)::text as n from "${db.schema}".effects where event_id = $1`,
    [id],
  );
  return Number(rows[0]!.n);
}

function deliver(sql: Sql, id: string): Promise<Received<string>> {
  return sql.transaction((tx) =>
    inbox.receive(tx, { id }, async (tx) => {
      await effect(tx, id);
      return 'done';
    }),
  );
}

describe('inbox', () => {
  test('a redelivered event is acknowledged as a duplicate and its handler does not run again', async () => {
    const id = eventId();
    assert.deepEqual(await deliver(db.sql, id), { kind: 'processed', duplicate: false, result: 'done' });
    for (let i = 0; i < 4; i++)
      assert.deepEqual(await deliver(db.sql, id), { kind: 'duplicate', duplicate: true });
    assert.equal(await effects(id), 1);
  });

  test('the result narrows on kind: processed carries the result, duplicate nothing', async () => {
    const id = eventId();
    const read = (r: Awaited<ReturnType<typeof deliver>>) =>
      r.kind === 'processed' ? `processed ${r.result}` : 'duplicate';
    assert.equal(read(await deliver(db.sql, id)), 'processed done');
    const again = await deliver(db.sql, id);
    assert.equal(read(again), 'duplicate');
    assert.equal(again.duplicate, again.kind === 'duplicate');
  });

  test('a handler that throws rolls the record back with its effects; the redelivery runs it', async () => {
    const id = eventId();
    await assert.rejects(
      db.sql.transaction((tx) =>
        inbox.receive(tx, { id }, async (tx) => {
          await effect(tx, id);
          throw new Error('downstream failed');
        }),
      ),
      /downstream failed/,
    );
    assert.equal(await effects(id), 0);
    assert.equal((await deliver(db.sql, id)).duplicate, false);
    assert.equal(await effects(id), 1);
  });

  test('ids are de-duplicated per consumer', async () => {
    const id = eventId();
    const billing = createInbox({ schema: db.schema, consumer: 'billing' });
    const shipping = createInbox({ schema: db.schema, consumer: 'shipping' });
    for (const consumer of [billing, shipping, billing]) {
      await db.sql.transaction((tx) => consumer.receive(tx, { id }, (tx) => effect(tx, id)));
    }
    // The event's own consumer wins over the inbox's.
    await db.sql.transaction((tx) => billing.receive(tx, { id, consumer: 'audit' }, (tx) => effect(tx, id)));
    assert.equal(await effects(id), 3);
  });

  test('purge forgets events received before a date', async () => {
    let clock = Date.parse('2020-01-01T00:00:00Z');
    const old = createInbox({ schema: db.schema, consumer: 'purge', now: () => clock });
    const id = eventId();
    await db.sql.transaction((tx) => old.receive(tx, { id }, async () => undefined));
    clock = Date.parse('2020-01-10T00:00:00Z');
    await db.sql.transaction((tx) => old.receive(tx, { id: `${id}_b` }, async () => undefined));
    assert.equal(await old.purge(db.sql, new Date('2020-01-05T00:00:00Z')), 1);
    const again = await db.sql.transaction((tx) => old.receive(tx, { id }, async () => 'ran'));
    assert.deepEqual(again, { kind: 'processed', duplicate: false, result: 'ran' });
  });

  test('an empty id is refused', async () => {
    await assert.rejects(
      db.sql.transaction((tx) => inbox.receive(tx, { id: '' }, async () => undefined)),
      TypeError,
    );
  });

  test('migrating twice is harmless', async () => {
    await inbox.migrate(db.sql);
  });
});

describe('inbox under concurrency (PostgreSQL)', () => {
  test('the same event delivered 10 times, 5 of them concurrently: the effect happens once', {
    skip: needsPostgres,
  }, async () => {
    const pool = db.connect(10);
    const id = eventId();
    // 5 at once, each on its own connection. Whichever wins the insert waits, inside its open
    // transaction, until all 5 have started and the others had time to block on its row.
    let started = 0;
    const concurrent = await Promise.all(
      Array.from({ length: 5 }, () =>
        pool.transaction((tx) => {
          started++;
          return inbox.receive(tx, { id }, async (tx) => {
            await effect(tx, id);
            while (started < 5) await new Promise((resolve) => setTimeout(resolve, 5));
            await tx.query('select pg_sleep(0.1)');
            return 'done';
          });
        }),
      ),
    );
    // Then 5 redeliveries one after the other.
    const sequential: Received<string>[] = [];
    for (let i = 0; i < 5; i++) sequential.push(await deliver(pool, id));
    const all = [...concurrent, ...sequential];
    assert.equal(all.filter((r) => !r.duplicate).length, 1);
    assert.equal(all.filter((r) => r.duplicate).length, 9);
    assert.equal(await effects(id), 1);
  });

  test('if the first delivery rolls back, exactly one of the waiting ones runs', {
    skip: needsPostgres,
  }, async () => {
    const pool = db.connect(10);
    const id = eventId();
    // The others start once the failing one holds the row (its effect runs only after that), not
    // after a guess at how long taking it takes: on a fresh pool it took up to 84 ms on CI.
    let holding!: () => void;
    const holds = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const failing = pool.transaction((tx) =>
      inbox.receive(tx, { id }, async (tx) => {
        await effect(tx, id);
        holding();
        await tx.query('select pg_sleep(0.2)');
        throw new Error('first attempt failed');
      }),
    );
    await holds;
    const others = Promise.all(Array.from({ length: 4 }, () => deliver(pool, id)));
    await assert.rejects(failing, /first attempt failed/);
    const results = await others;
    assert.equal(results.filter((r) => !r.duplicate).length, 1);
    assert.equal(await effects(id), 1);
  });

  describe('over HTTP: a Fastify receiver with verification and the inbox', () => {
    let app: FastifyInstance;
    let url: string;
    let ran = 0;
    const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

    before(async () => {
      if (needsPostgres) return;
      const pool = db.connect(10);
      app = Fastify();
      await app.register(webhooks, { secrets: SECRET });
      app.post('/webhooks', { config: { webhook: true } }, async (request) => {
        const body = request.body as { id: string; amount: number };
        // 2xx only after COMMIT: the record and the effect are durable before we acknowledge.
        const outcome = await pool.transaction((tx) =>
          inbox.receive(tx, { id: request.webhook!.id! }, async (tx) => {
            ran++;
            await effect(tx, body.id, 'http');
            await tx.query('select pg_sleep(0.05)');
          }),
        );
        return { duplicate: outcome.duplicate };
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks`;
    });
    after(async () => {
      await app?.close();
    });

    test('10 signed deliveries, 5 concurrent: all acknowledged 200, the handler ran once', {
      skip: needsPostgres,
    }, async () => {
      const id = eventId();
      const body = JSON.stringify({ id, amount: 1200 });
      const headers = { ...(await sign({ id, body, secrets: SECRET })), 'content-type': 'application/json' };
      const post = async () => {
        const response = await fetch(url, { method: 'POST', body, headers });
        return { status: response.status, body: (await response.json()) as { duplicate: boolean } };
      };
      const responses = await Promise.all(Array.from({ length: 5 }, post));
      for (let i = 0; i < 5; i++) responses.push(await post());
      assert.deepEqual(
        responses.map((r) => r.status),
        Array(10).fill(200),
      );
      assert.equal(responses.filter((r) => !r.body.duplicate).length, 1);
      assert.equal(ran, 1);
      assert.equal(await effects(id), 1);
    });
  });
});
