// Worker killed, receiver flaky: 2 delivery worker processes on PostgreSQL, one SIGKILLed mid-batch,
// and a receiver that verifies each signature and applies each event through the durable inbox
// (@surety/webhook-verify) in a receiver-side schema, and that fails on purpose: 15% answer 500
// before doing anything, 15% do the work then answer 500 (the acknowledgement is lost), 5% do the
// work then answer after the worker's timeout. Delivery is at-least-once; with the inbox every
// event's effect must happen exactly once. Loopback only.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Sql } from '@surety/db';
import { createTestDatabase, needsPostgres, postgresUrl, type TestDatabase } from '@surety/db/testing';
import { verifySync } from '@surety/webhook-verify';
import { createInbox, type Inbox } from '@surety/webhook-verify/inbox';
import { parseAllowList, Webhooks } from '@surety/webhooks';
import { spawnWorkerProcess, startReceiver, stopProcess } from '@surety/webhooks/testing';
import { delay, report, seeded, size, until } from './lib.js';

let db: TestDatabase;
let webhooks: Webhooks;
let rxSql: Sql;
let inbox: Inbox;
let rxSchema: string;
const children: ChildProcess[] = [];

async function spawnWorker(): Promise<ChildProcess> {
  const child = await spawnWorkerProcess({
    databaseUrl: postgresUrl!,
    schema: db.schema,
    // The timeout is well above a loaded CI machine's answer times (at 500 ms, a quarter of the
    // real answers timed out there); the lease outlasts it.
    env: {
      LEASE_MS: '5000',
      TIMEOUT_MS: '2000',
      SCHEDULE: Array.from({ length: 25 }, () => '50ms').join(','),
    },
  });
  children.push(child);
  return child;
}

const stop = stopProcess;

describe('delivery workers killed, receiver flaky, consumer inbox', { skip: needsPostgres }, () => {
  before(async () => {
    db = await createTestDatabase();
    webhooks = new Webhooks({
      sql: db.sql,
      schema: db.schema,
      allowHttp: true,
      allowList: parseAllowList('127.0.0.1/32'),
    });
    await webhooks.migrate();
    // The receiving side: its own schema and pool, as a customer's service would have.
    rxSchema = `${db.schema}_rx`;
    rxSql = db.connect(10);
    inbox = createInbox({ schema: rxSchema, consumer: 'fulfilment' });
    await inbox.migrate(rxSql);
    await rxSql.query(
      `create table "${rxSchema}".effects (event_id text not null, applied_at timestamptz not null)`,
    );
  });
  after(async () => {
    await Promise.all(children.map((c) => stop(c, 'SIGKILL')));
    await rxSql?.query(`drop schema if exists "${rxSchema}" cascade`).catch(() => {});
    await db?.close();
  });

  test('every event applied exactly once through the inbox, despite a SIGKILLed worker and a 35% faulty receiver', async () => {
    const n = size(500, 4000);
    const kills = size(1, 4);
    const { random } = seeded('webhook-delivery');
    const tenant = 'faults';
    const injected = { before: 0, after: 0, slow: 0, duplicates: 0, badSignature: 0 };
    let secret = '';
    const rx = await startReceiver(async (r, _n, res) => {
      const u = random();
      if (u < 0.15) {
        injected.before++;
        return void res.writeHead(500).end('failing before the work');
      }
      let id: string;
      try {
        id = verifySync({ body: r.body, headers: r.headers, secrets: secret }).id!;
      } catch {
        injected.badSignature++;
        return void res.writeHead(400).end('bad signature');
      }
      const outcome = await rxSql.transaction((tx) =>
        inbox.receive(tx, { id }, (tx) =>
          tx.query(`insert into "${rxSchema}".effects (event_id, applied_at) values ($1, now())`, [id]),
        ),
      );
      if (outcome.duplicate) injected.duplicates++;
      if (u < 0.3) {
        injected.after++;
        return void res.writeHead(500).end('failing after the work');
      }
      if (u < 0.35) {
        injected.slow++;
        await delay(2500); // past the worker's 2,000 ms timeout
        if (!res.destroyed) res.writeHead(200).end();
        return;
      }
      res.writeHead(200).end();
    });
    try {
      const created = await webhooks.createEndpoint(db.sql, { tenant, url: rx.url, eventTypes: ['*'] });
      secret = created.secret;
      const workers = await Promise.all([spawnWorker(), spawnWorker()]);
      const ids: string[] = [];
      for (let batch = 0; batch < n / 100; batch++) {
        await db.sql.transaction(async (tx) => {
          for (let i = 0; i < 100; i++)
            ids.push((await webhooks.publish(tx, { tenant, type: 'order.created', data: { batch, i } })).id);
        });
      }
      // Kill a worker mid-batch (it holds leased deliveries and requests in flight), start another.
      for (let k = 0; k < kills; k++) {
        await rx.waitFor(Math.floor((n * (k + 1)) / (kills + 2)), 60_000);
        const victim = workers[k % 2]!;
        await stop(victim, 'SIGKILL');
        workers[k % 2] = await spawnWorker();
      }
      const applied = async () =>
        Number(
          (
            await rxSql.query<{ n: string }>(
              `select count(distinct event_id)::text as n from "${rxSchema}".effects`,
            )
          ).rows[0]!.n,
        );
      await until(async () => (await applied()) === n, 'every event to be applied', 120_000, 200);
      await until(
        async () =>
          Number(
            (
              await db.sql.query<{ n: string }>(
                `select count(*)::text as n from "${db.schema}".webhook_deliveries where status <> 'delivered'`,
              )
            ).rows[0]!.n,
          ) === 0,
        'every delivery to be marked delivered',
        60_000,
        200,
      );
      await Promise.all(children.map((c) => stop(c, 'SIGTERM')));

      const perEvent = (
        await rxSql.query<{ event_id: string; n: number }>(
          `select event_id, count(*)::int as n from "${rxSchema}".effects group by event_id`,
        )
      ).rows;
      const effectCount = new Map(perEvent.map((r) => [r.event_id, r.n]));
      const lost = ids.filter((id) => !effectCount.has(id)).length;
      const duplicated = perEvent.reduce((sum, r) => sum + r.n - 1, 0);
      report({
        scenario: 'worker SIGKILLed, receiver flaky, inbox',
        operations: n,
        faults: kills + injected.before + injected.after + injected.slow,
        lost,
        duplicated,
        notes:
          `${rx.received.length} requests; ${injected.before} failed before, ${injected.after} after the work, ` +
          `${injected.slow} timed out; ${injected.duplicates} redeliveries absorbed by the inbox`,
      });
      assert.equal(injected.badSignature, 0, 'every delivery was correctly signed');
      assert.equal(lost, 0, 'every event was applied');
      assert.equal(duplicated, 0, 'no event was applied twice');
      assert.equal(perEvent.length, n);
      assert.ok(injected.duplicates > 0, 'redeliveries of applied events happened and were absorbed');
      assert.ok(rx.received.length > n, 'delivery was at-least-once: more requests than events');
    } finally {
      await rx.close();
    }
  });
});
