// Delivery and attempt ids (issue 19, migration 000012): random time-ordered `dlv_…` / `att_…`
// ids, and a database that held the counter's ids (`dlv_60`) migrated with its data: every row
// keeps its public id, lists stay in time order across old and new ids, and an ordered endpoint's
// old queue goes out in sequence order before what is published after the migration.
// PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '../src/index.js';
import { migrations } from '../src/migrations.js';
import { startReceiver } from '../src/testing.js';

let db: TestDatabase;
let webhooks: Webhooks;
let clock = Date.parse('2026-06-01T00:00:00Z');
const schema = () => `${db.schema}_ids`;
const q = (text: string, params: unknown[] = []) => db.sql.query(text, params);
const ID = /^(dlv|att)_[0-9A-Za-z]{22}$/;

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: schema(),
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
});
after(async () => {
  await q(`drop schema if exists "${schema()}" cascade`);
  await db.close();
});

const worker = () =>
  new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 2000,
    guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
  });

describe('a database with deliveries and attempts under the counter ids, migrated', () => {
  const old = { delivered: '', pendingA: '', pendingB: '', attempt: '' };
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let ordered = '';
  let other = '';

  before(async () => {
    rx = await startReceiver();
    // The layout before migration 000012, with rows as that version's publish and worker wrote them.
    await migrate(db.sql, {
      schema: schema(),
      sets: [{ set: migrations.set, migrations: migrations.migrations.filter((m) => m.id < 12) }],
    });
    ordered = (
      await webhooks.createEndpoint(db.sql, {
        tenant: 'm',
        url: `${rx.url}/ordered`,
        eventTypes: ['*'],
        ordered: true,
      })
    ).endpoint.id;
    other = (await webhooks.createEndpoint(db.sql, { tenant: 'm', url: rx.url, eventTypes: ['*'] })).endpoint
      .id;
    const s = `"${schema()}"`;
    const at = (ms: number) => new Date(clock - ms).toISOString();
    // Three events an hour, two hours and three hours ago; the counter has run to 57 deliveries.
    await q(`select setval('${s}.webhook_deliveries_id_seq', 57)`);
    for (const [i, ago] of [
      [1, 3],
      [2, 2],
      [3, 1],
    ] as const) {
      await q(
        `insert into ${s}.webhook_events (tenant, id, type, api_version, sequence, data, created_at)
         values ('m', $1, 'order.updated', '2026-01-01', nextval('${s}.webhook_event_sequence'), $2, $3)`,
        [`evt_old${i}`, JSON.stringify({ i }), at(ago * 3_600_000)],
      );
    }
    const insert = async (event: string, endpoint: string, status: string, ago: number) => {
      const { rows } = await db.sql.query<{ id: string }>(
        `insert into ${s}.webhook_deliveries (tenant, endpoint_id, event_id, status, ordered, attempts,
                                              next_attempt_at, created_at, completed_at)
         values ('m', $1, $2, $3, $4, $5, $6, $6, $7) returning id::text`,
        [
          endpoint,
          event,
          status,
          endpoint === ordered,
          status === 'delivered' ? 1 : 0,
          at(ago * 3_600_000),
          status === 'delivered' ? at(ago * 3_600_000 - 1000) : null,
        ],
      );
      return rows[0]!.id;
    };
    old.delivered = await insert('evt_old1', other, 'delivered', 3);
    // Queued on the ordered endpoint in the opposite order of their events' sequence: the head is
    // the event published first (evt_old2), whatever the counter said.
    old.pendingB = await insert('evt_old3', ordered, 'pending', 1);
    old.pendingA = await insert('evt_old2', ordered, 'pending', 1);
    const { rows } = await db.sql.query<{ id: string }>(
      `insert into ${s}.webhook_attempts (delivery_id, tenant, endpoint_id, attempt, started_at, duration_ms, status)
       values ($1, 'm', $2, 1, $3, 12, 200) returning id::text`,
      [old.delivered, other, at(3 * 3_600_000 - 1000)],
    );
    old.attempt = rows[0]!.id;
    assert.deepEqual([old.delivered, old.pendingB, old.pendingA], ['58', '59', '60']);
    await webhooks.migrate();
  });
  after(() => rx.close());

  test('every row keeps its public id: dlv_58 and its attempt att_1 are found by them', async () => {
    const { data } = await webhooks.listDeliveries(db.sql, { tenant: 'm', endpointId: other });
    assert.deepEqual(
      data.map((d) => [d.id, d.eventId, d.status]),
      [['dlv_58', 'evt_old1', 'delivered']],
    );
    const attempts = await webhooks.listAttempts(db.sql, { tenant: 'm', deliveryId: 'dlv_58' });
    assert.deepEqual(
      attempts?.map((a) => [a.id, a.deliveryId, a.status]),
      [[`att_${old.attempt}`, 'dlv_58', 200]],
    );
    assert.equal(await webhooks.listAttempts(db.sql, { tenant: 'other', deliveryId: 'dlv_58' }), undefined);
    assert.equal(await webhooks.listAttempts(db.sql, { tenant: 'm', deliveryId: '58' }), undefined);
  });

  test('after it: new ids are random and time-ordered; the old queue goes first, by sequence', async () => {
    clock += 1;
    await db.sql.transaction((tx) =>
      webhooks.publish(tx, { tenant: 'm', type: 'order.updated', data: { i: 4 } }),
    );
    const w = worker();
    assert.equal(await w.drain(), 4);
    assert.deepEqual(
      rx.received.filter((r) => r.path.endsWith('/ordered')).map((r) => JSON.parse(r.body).data.i),
      [2, 3, 4],
      'the ordered endpoint: evt_old2, evt_old3, then the new event',
    );
    assert.equal(rx.received.length, 4, 'the other endpoint got the new event');
    const listed = await webhooks.listDeliveries(db.sql, { tenant: 'm', endpointId: ordered, limit: 1 });
    // newest first by time: the new delivery, then the migrated ones (whose ids sort after it)
    assert.match(listed.data[0]!.id, ID);
    assert.ok(listed.data[0]!.id < 'dlv_59', 'a new id sorts before the digits of the old ones');
    const rest = await webhooks.listDeliveries(db.sql, {
      tenant: 'm',
      endpointId: ordered,
      cursor: listed.nextCursor!,
    });
    assert.deepEqual(
      rest.data.map((d) => [d.id, d.status]),
      [
        ['dlv_60', 'delivered'],
        ['dlv_59', 'delivered'],
      ].sort((a, b) => (a[0]! < b[0]! ? 1 : -1)),
    );
    assert.equal(rest.hasMore, false);
    // the attempts of a migrated delivery get random ids, and point at its old id
    const attempts = await webhooks.listAttempts(db.sql, { tenant: 'm', deliveryId: 'dlv_60' });
    assert.equal(attempts?.length, 1);
    assert.match(attempts![0]!.id, ID);
    assert.equal(attempts![0]!.deliveryId, 'dlv_60');
    const fresh = await webhooks.listAttempts(db.sql, { tenant: 'm', deliveryId: listed.data[0]!.id });
    assert.equal(fresh?.length, 1);
  });

  test('the id columns compare bytes (collate "C"), so id order is time order', async () => {
    const { rows } = await db.sql.query<{ column_name: string; collation_name: string | null }>(
      `select table_name || '.' || column_name as column_name, collation_name from information_schema.columns
        where table_schema = $1 and ((table_name = 'webhook_deliveries' and column_name = 'id')
           or (table_name = 'webhook_attempts' and column_name in ('id', 'delivery_id')))
        order by 1`,
      [schema()],
    );
    assert.deepEqual(
      rows.map((r) => [r.column_name, r.collation_name]),
      [
        ['webhook_attempts.delivery_id', 'C'],
        ['webhook_attempts.id', 'C'],
        ['webhook_deliveries.id', 'C'],
      ],
    );
    // the database's id function and newId agree on the time part (base62 milliseconds)
    const { rows: made } = await db.sql.query<{ id: string }>(
      `select "${schema()}".webhook_new_id('dlv', $1) as id`,
      [new Date(clock).toISOString()],
    );
    const { newId } = await import('../src/ids.js');
    assert.equal(made[0]!.id.slice(0, 12), newId('dlv', clock).slice(0, 12));
    assert.match(made[0]!.id, ID);
  });
});
