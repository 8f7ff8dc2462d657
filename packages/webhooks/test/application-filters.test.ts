// The reads by application that the consumer portal scopes with (issue 19, docs/portal.md):
// events published to an application, deliveries to its endpoints and the attempts of one, by the
// application's id or uid; another application's, the tenant's own and another tenant's are left out.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { parseAllowList, Webhooks } from '../src/index.js';

let db: TestDatabase;
let webhooks: Webhooks;
const F = { a: '', b: '', epA: '', epB: '', epT: '', evA: '', evB: '', evT: '', other: '' };

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  F.a = (await webhooks.createApplication(db.sql, { tenant: 't1', name: 'A', uid: 'cus-a' })).id;
  F.b = (await webhooks.createApplication(db.sql, { tenant: 't1', name: 'B', uid: 'cus-b' })).id;
  F.other = (
    await webhooks.createApplication(db.sql, { tenant: 't2', name: 'A elsewhere', uid: 'cus-a' })
  ).id;
  const endpoint = async (tenant: string, applicationId?: string) =>
    (
      await webhooks.createEndpoint(db.sql, {
        tenant,
        url: 'http://127.0.0.1:9/f',
        eventTypes: ['*'],
        ...(applicationId ? { applicationId } : {}),
      })
    ).endpoint.id;
  F.epA = await endpoint('t1', F.a);
  F.epB = await endpoint('t1', F.b);
  F.epT = await endpoint('t1');
  await endpoint('t2', F.other);
  const publish = async (tenant: string, application?: string) =>
    (
      await db.sql.transaction((tx) =>
        webhooks.publish(tx, {
          tenant,
          type: 'order.created',
          data: {},
          ...(application ? { application } : {}),
        }),
      )
    ).id;
  F.evA = await publish('t1', F.a);
  F.evB = await publish('t1', 'cus-b');
  F.evT = await publish('t1');
  await publish('t2', F.other);
  // An operator replays A's event to the tenant's own endpoint: the engine keeps replays to the
  // event's audience, so it queues nothing, and A's deliveries stay A's.
  assert.equal(await webhooks.replayEvent(db.sql, { tenant: 't1', eventId: F.evA, endpointId: F.epT }), 0);
});
after(() => db.close());

test('events carry their application and are listed by its id or uid', async () => {
  assert.equal((await webhooks.getEvent(db.sql, { tenant: 't1', id: F.evA }))?.applicationId, F.a);
  assert.equal((await webhooks.getEvent(db.sql, { tenant: 't1', id: F.evT }))?.applicationId, null);
  for (const ref of [F.a, 'cus-a']) {
    const page = await webhooks.listEvents(db.sql, { tenant: 't1', applicationId: ref });
    assert.deepEqual(
      page.data.map((e) => e.id),
      [F.evA],
      ref,
    );
  }
  const all = await webhooks.listEvents(db.sql, { tenant: 't1' });
  assert.equal(all.data.length, 3);
  for (const ref of ['cus-unknown', 'app_0000000000000000000000', F.other]) {
    assert.deepEqual((await webhooks.listEvents(db.sql, { tenant: 't1', applicationId: ref })).data, [], ref);
  }
});

test("deliveries are listed by their endpoint's application", async () => {
  for (const ref of [F.b, 'cus-b']) {
    const page = await webhooks.listDeliveries(db.sql, { tenant: 't1', applicationId: ref });
    assert.deepEqual(
      page.data.map((d) => d.endpointId),
      [F.epB],
      ref,
    );
  }
  const ofEvent = await webhooks.listDeliveries(db.sql, { tenant: 't1', eventId: F.evA, applicationId: F.b });
  assert.deepEqual(ofEvent.data, []);
  assert.equal((await webhooks.listDeliveries(db.sql, { tenant: 't1' })).data.length, 3);
});

test("a delivery's attempts only under its endpoint's application", async () => {
  const [dlvA] = (await webhooks.listDeliveries(db.sql, { tenant: 't1', endpointId: F.epA })).data;
  assert.ok(dlvA);
  assert.deepEqual(
    await webhooks.listAttempts(db.sql, { tenant: 't1', deliveryId: dlvA.id, applicationId: F.a }),
    [],
  );
  assert.deepEqual(
    await webhooks.listAttempts(db.sql, { tenant: 't1', deliveryId: dlvA.id, applicationId: 'cus-a' }),
    [],
  );
  for (const ref of [F.b, 'cus-b', 'cus-unknown', F.other]) {
    assert.equal(
      await webhooks.listAttempts(db.sql, { tenant: 't1', deliveryId: dlvA.id, applicationId: ref }),
      undefined,
    );
  }
  assert.equal(
    await webhooks.listAttempts(db.sql, { tenant: 't2', deliveryId: dlvA.id, applicationId: F.a }),
    undefined,
  );
});
