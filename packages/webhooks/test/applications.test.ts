// Applications (issue 19, docs/applications.md): the model (ids and uids, versions, pages), the
// fan-out rule (no application: the tenant's own endpoints only; an application: its endpoints
// only), replay under the same rule, and deletion (endpoints deleted as deleteEndpoint does each,
// events kept). PGlite, and PostgreSQL with DATABASE_URL (the delete/create race needs it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, needsPostgres, type TestDatabase } from '@surety/db/testing';
import {
  isApplicationNotFoundError,
  isApplicationUidTakenError,
  isInvalidInputError,
  parseAllowList,
  Webhooks,
} from '../src/index.js';

let db: TestDatabase;
let webhooks: Webhooks;
let tenantN = 0;
const nextTenant = () => `apps${++tenantN}`;

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    maxEndpointsPerTenant: 3,
  });
  await webhooks.migrate();
});
after(() => db.close());

const notFound = (e: unknown) => {
  assert.ok(isApplicationNotFoundError(e), `not ApplicationNotFoundError: ${String(e)}`);
  assert.equal((e as { code: string }).code, 'SURETY_APPLICATION_NOT_FOUND');
  return true;
};
const fieldOf = (e: unknown) => (e as { field?: string }).field;
const uidTaken = (e: unknown) => {
  assert.ok(isApplicationUidTakenError(e), `not ApplicationUidTakenError: ${String(e)}`);
  assert.equal((e as { code: string }).code, 'SURETY_APPLICATION_UID_TAKEN');
  return true;
};
const invalid = (path: string) => (e: unknown) => {
  assert.ok(isInvalidInputError(e), `not InvalidInputError: ${String(e)}`);
  assert.equal((e as { errors: { path: string }[] }).errors[0]?.path, path);
  return true;
};

const endpoint = (tenant: string, applicationId?: string) =>
  webhooks
    .createEndpoint(db.sql, { tenant, url: 'http://127.0.0.1:9/apps', eventTypes: ['*'], applicationId })
    .then((r) => r.endpoint);

/** The endpoints an event's deliveries went to, one entry per delivery. */
async function targets(tenant: string, eventId: string) {
  const page = await webhooks.listDeliveries(db.sql, { tenant, eventId, limit: 100 });
  return page.data.map((d) => d.endpointId);
}

/** endpoint id → delivery status and error, for one event. */
async function deliveriesOf(tenant: string, eventId: string) {
  const page = await webhooks.listDeliveries(db.sql, { tenant, eventId, limit: 100 });
  return new Map(page.data.map((d) => [d.endpointId, `${d.status}${d.lastError ? `:${d.lastError}` : ''}`]));
}

describe('the model', () => {
  test('create, then get by id and by uid; another tenant sees nothing', async () => {
    const tenant = nextTenant();
    const app = await webhooks.createApplication(db.sql, {
      tenant,
      uid: 'cus_1',
      name: 'Acme',
      metadata: { plan: 'gold' },
    });
    assert.match(app.id, /^app_[0-9A-Za-z]{22}$/);
    assert.deepEqual(
      { uid: app.uid, name: app.name, metadata: app.metadata, version: app.version },
      { uid: 'cus_1', name: 'Acme', metadata: { plan: 'gold' }, version: 1 },
    );
    assert.equal(app.createdAt, app.updatedAt);
    assert.deepEqual(await webhooks.getApplication(db.sql, { tenant, id: app.id }), app);
    assert.deepEqual(await webhooks.getApplication(db.sql, { tenant, id: 'cus_1' }), app);
    assert.equal(await webhooks.getApplication(db.sql, { tenant: 'other', id: app.id }), undefined);
    assert.equal(await webhooks.getApplication(db.sql, { tenant: 'other', id: 'cus_1' }), undefined);
    assert.equal(
      await webhooks.getApplication(db.sql, { tenant, id: 'app_0000000000000000000000' }),
      undefined,
    );
    const bare = await webhooks.createApplication(db.sql, { tenant, name: 'No uid' });
    assert.deepEqual([bare.uid, bare.metadata], [null, {}]);
  });

  test('a uid is unique per tenant; the refused create leaves the transaction usable', async () => {
    const tenant = nextTenant();
    await webhooks.createApplication(db.sql, { tenant, uid: 'dup', name: 'First' });
    await db.sql.transaction(async (tx) => {
      await assert.rejects(webhooks.createApplication(tx, { tenant, uid: 'dup', name: 'Second' }), uidTaken);
      assert.equal((await webhooks.listApplications(tx, { tenant })).data.length, 1);
    });
    // Another tenant may use the same uid; applications without a uid never collide.
    await webhooks.createApplication(db.sql, { tenant: `${tenant}-b`, uid: 'dup', name: 'Theirs' });
    await webhooks.createApplication(db.sql, { tenant, name: 'a' });
    await webhooks.createApplication(db.sql, { tenant, name: 'b' });
    assert.equal((await webhooks.listApplications(db.sql, { tenant })).data.length, 3);
  });

  test('uid, name and metadata are checked before anything is written', async () => {
    const tenant = nextTenant();
    for (const uid of ['app_mine', '', '.hidden', 'a/b', 'x'.repeat(101), 'sp ace']) {
      await assert.rejects(webhooks.createApplication(db.sql, { tenant, uid, name: 'n' }), invalid('/uid'));
    }
    await assert.rejects(webhooks.createApplication(db.sql, { tenant, name: '' }), invalid('/name'));
    await assert.rejects(
      webhooks.createApplication(db.sql, { tenant, name: 'n', metadata: { n: 1 } as never }),
      invalid('/metadata/n'),
    );
    await assert.rejects(
      webhooks.createApplication(db.sql, { tenant, name: 'n', metadata: [] as never }),
      invalid('/metadata'),
    );
    await assert.rejects(webhooks.createApplication(db.sql, { tenant, name: 'a\u0000b' }), invalid('/name'));
    assert.equal((await webhooks.listApplications(db.sql, { tenant })).data.length, 0);
    const ok = await webhooks.createApplication(db.sql, { tenant, uid: 'A-z_0.9', name: 'n' });
    assert.equal(ok.uid, 'A-z_0.9');
  });

  test('list: newest first, keyset pages with no duplicates or gaps', async () => {
    const tenant = nextTenant();
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await webhooks.createApplication(db.sql, { tenant, name: `a${i}` }));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await webhooks.listApplications(db.sql, { tenant, limit: 2, cursor });
      seen.push(...page.data.map((a) => a.id));
      if (!page.nextCursor) {
        assert.equal(page.hasMore, false);
        break;
      }
      cursor = page.nextCursor;
    }
    // Newest first; two made in one millisecond are ordered by id, descending.
    const order = made
      .toSorted((x, y) => y.createdAt.localeCompare(x.createdAt) || (y.id < x.id ? -1 : 1))
      .map((a) => a.id);
    assert.deepEqual(seen, order);
    await assert.rejects(webhooks.listApplications(db.sql, { tenant, cursor: 'forged' }), {
      code: 'SURETY_INVALID_CURSOR',
    });
  });

  test('update: at the expected version only; by uid; a taken uid is refused; missing throws', async () => {
    const tenant = nextTenant();
    const app = await webhooks.createApplication(db.sql, {
      tenant,
      uid: 'u1',
      name: 'One',
      metadata: { a: '1' },
    });
    await webhooks.createApplication(db.sql, { tenant, uid: 'u2', name: 'Two' });
    const changed = await webhooks.updateApplication(db.sql, {
      tenant,
      id: 'u1',
      ifVersion: 1,
      patch: { name: 'Uno', metadata: { b: '2' } },
    });
    assert.deepEqual(
      { name: changed?.name, metadata: changed?.metadata, version: changed?.version, uid: changed?.uid },
      { name: 'Uno', metadata: { b: '2' }, version: 2, uid: 'u1' },
    );
    assert.equal(
      await webhooks.updateApplication(db.sql, { tenant, id: app.id, ifVersion: 1, patch: { name: 'x' } }),
      undefined,
      'a stale version is an answer',
    );
    await db.sql.transaction(async (tx) => {
      await assert.rejects(
        webhooks.updateApplication(tx, { tenant, id: app.id, ifVersion: 2, patch: { uid: 'u2' } }),
        uidTaken,
      );
      const still = await webhooks.getApplication(tx, { tenant, id: 'u1' });
      assert.equal(still?.version, 2, 'the transaction goes on');
    });
    await assert.rejects(
      webhooks.updateApplication(db.sql, { tenant, id: app.id, ifVersion: 2, patch: { uid: 'app_x' } }),
      invalid('/uid'),
    );
    const cleared = await webhooks.updateApplication(db.sql, {
      tenant,
      id: app.id,
      ifVersion: 2,
      patch: { uid: null },
    });
    assert.deepEqual([cleared?.uid, cleared?.version], [null, 3]);
    assert.equal(await webhooks.getApplication(db.sql, { tenant, id: 'u1' }), undefined);
    for (const id of ['u1', 'app_0000000000000000000000']) {
      await assert.rejects(
        webhooks.updateApplication(db.sql, { tenant, id, ifVersion: 1, patch: { name: 'x' } }),
        notFound,
      );
    }
    await assert.rejects(
      webhooks.updateApplication(db.sql, { tenant: 'other', id: app.id, ifVersion: 3, patch: { name: 'x' } }),
      notFound,
    );
  });
});

describe('endpoints of an application', () => {
  test('created by id or uid (stored as the id), listed by either; an unknown one is refused', async () => {
    const tenant = nextTenant();
    const a = await webhooks.createApplication(db.sql, { tenant, uid: 'cus_a', name: 'A' });
    const own = await endpoint(tenant);
    const byUid = await endpoint(tenant, 'cus_a');
    const byId = await endpoint(tenant, a.id);
    assert.deepEqual([own.applicationId, byUid.applicationId, byId.applicationId], [null, a.id, a.id]);
    assert.equal((await webhooks.getEndpoint(db.sql, { tenant, id: byUid.id }))?.applicationId, a.id);
    const ids = async (applicationId?: string) =>
      (await webhooks.listEndpoints(db.sql, { tenant, applicationId })).data.map((e) => e.id).sort();
    assert.deepEqual(await ids('cus_a'), [byUid.id, byId.id].sort());
    assert.deepEqual(await ids(a.id), [byUid.id, byId.id].sort());
    assert.deepEqual(await ids(), [own.id, byUid.id, byId.id].sort());
    assert.deepEqual(await ids('nobody'), []);
    assert.deepEqual(await ids('app_0000000000000000000000'), []);
    await assert.rejects(endpoint(tenant, 'nobody'), (e) => notFound(e) && fieldOf(e) === 'applicationId');
    await assert.rejects(endpoint(`${tenant}-other`, 'cus_a'), notFound, "another tenant's application");
    await assert.rejects(endpoint(`${tenant}-other`, a.id), notFound);
  });
});

describe('fan-out by application', () => {
  test('no application: the tenant’s own endpoints; an application: its own only; unknown: nothing written', async () => {
    const tenant = nextTenant();
    const a = await webhooks.createApplication(db.sql, { tenant, uid: 'a', name: 'A' });
    const b = await webhooks.createApplication(db.sql, { tenant, uid: 'b', name: 'B' });
    const own = await endpoint(tenant);
    const ea = await endpoint(tenant, 'a');
    const eb = await endpoint(tenant, 'b');

    const plain = await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {} });
    assert.equal(plain.deliveries, 1);
    assert.deepEqual(await targets(tenant, plain.id), [own.id]);

    assert.equal(plain.applicationId, null);
    for (const ref of ['a', a.id]) {
      const toA = await webhooks.publish(db.sql, {
        tenant,
        type: 'order.created',
        data: {},
        application: ref,
      });
      assert.deepEqual([toA.deliveries, toA.applicationId], [1, a.id]);
      assert.deepEqual(await targets(tenant, toA.id), [ea.id]);
    }
    const toB = await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {}, application: 'b' });
    assert.deepEqual(await targets(tenant, toB.id), [eb.id]);

    // Each event says its application, and the list filters by id or uid.
    assert.equal((await webhooks.getEvent(db.sql, { tenant, id: plain.id }))?.applicationId, null);
    assert.equal((await webhooks.getEvent(db.sql, { tenant, id: toB.id }))?.applicationId, b.id);
    const listed = async (applicationId?: string) =>
      (await webhooks.listEvents(db.sql, { tenant, applicationId, limit: 100 })).data.map((e) => e.id);
    assert.deepEqual(await listed('b'), [toB.id]);
    assert.equal((await listed(a.id)).length, 2);
    assert.deepEqual(await listed('a'), await listed(a.id));
    assert.deepEqual(await listed('nobody'), []);
    assert.equal((await listed()).length, 4);

    const before = (await webhooks.listEvents(db.sql, { tenant, limit: 100 })).data.length;
    await assert.rejects(
      webhooks.publish(db.sql, { tenant, type: 'order.created', data: {}, application: 'c' }),
      (e) => notFound(e) && fieldOf(e) === 'application',
    );
    await assert.rejects(
      webhooks.publish(db.sql, { tenant: `${tenant}-x`, type: 'order.created', data: {}, application: a.id }),
      notFound,
    );
    assert.equal((await webhooks.listEvents(db.sql, { tenant, limit: 100 })).data.length, before);
  });

  test('an event to a named endpoint takes its application; replay keeps to the event’s audience', async () => {
    const tenant = nextTenant();
    await webhooks.createApplication(db.sql, { tenant, uid: 'a', name: 'A' });
    await webhooks.createApplication(db.sql, { tenant, uid: 'b', name: 'B' });
    const own = await endpoint(tenant);
    const ea = await endpoint(tenant, 'a');
    const eb = await endpoint(tenant, 'b');

    const toA = await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {}, application: 'a' });
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: toA.id }), 1);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: toA.id, endpointId: eb.id }), 0);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: toA.id, endpointId: own.id }), 0);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: toA.id, endpointId: ea.id }), 1);

    const plain = await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {} });
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: plain.id }), 1);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: plain.id, endpointId: ea.id }), 0);
    assert.deepEqual(await targets(tenant, plain.id), [own.id, own.id]);

    // A test event names its endpoint: it reaches it, and belongs to the endpoint's application.
    const test = await webhooks.publish(db.sql, {
      tenant,
      type: 'webhook.test',
      data: {},
      endpointId: eb.id,
    });
    assert.deepEqual([test.deliveries, test.applicationId], [1, eb.applicationId]);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: test.id }), 1);
    assert.deepEqual(await targets(tenant, test.id), [eb.id, eb.id]);
    // Named together with another application: nothing.
    const crossed = await webhooks.publish(db.sql, {
      tenant,
      type: 'webhook.test',
      data: {},
      endpointId: eb.id,
      application: 'a',
    });
    assert.equal(crossed.deliveries, 0);
  });
});

describe('deleting an application', () => {
  test('deletes its endpoints as deleteEndpoint does, fails their queued deliveries, keeps events', async () => {
    const tenant = nextTenant();
    const a = await webhooks.createApplication(db.sql, { tenant, uid: 'a', name: 'A' });
    await webhooks.createApplication(db.sql, { tenant, uid: 'b', name: 'B' });
    const ea1 = await endpoint(tenant, 'a');
    const ea2 = await endpoint(tenant, 'a');
    const eb = await endpoint(tenant, 'b');
    // The tenant is at its limit of 3 endpoints.
    await assert.rejects(endpoint(tenant), { code: 'SURETY_ENDPOINT_LIMIT' });
    const toA = await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {}, application: 'a' });
    const toB = await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {}, application: 'b' });

    assert.equal(
      await db.sql.transaction((tx) => webhooks.deleteApplication(tx, { tenant, id: 'a', ifVersion: 9 })),
      false,
    );
    assert.ok(await webhooks.getApplication(db.sql, { tenant, id: 'a' }), 'a stale version deletes nothing');
    assert.equal(
      await db.sql.transaction((tx) => webhooks.deleteApplication(tx, { tenant, id: 'a', ifVersion: 1 })),
      true,
    );

    assert.equal(await webhooks.getApplication(db.sql, { tenant, id: a.id }), undefined);
    assert.equal(await webhooks.getEndpoint(db.sql, { tenant, id: ea1.id }), undefined);
    assert.equal(await webhooks.getEndpoint(db.sql, { tenant, id: ea2.id }), undefined);
    assert.ok(
      await webhooks.getEndpoint(db.sql, { tenant, id: eb.id }),
      "another application's endpoint stays",
    );
    assert.deepEqual(Object.fromEntries(await deliveriesOf(tenant, toA.id)), {
      [ea1.id]: 'failed:endpoint_deleted',
      [ea2.id]: 'failed:endpoint_deleted',
    });
    assert.deepEqual(Object.fromEntries(await deliveriesOf(tenant, toB.id)), { [eb.id]: 'pending' });
    assert.equal((await webhooks.getEvent(db.sql, { tenant, id: toA.id }))?.id, toA.id, 'events stay');
    // The tenant's endpoint count went down by two: two more fit.
    await endpoint(tenant);
    await endpoint(tenant, 'b');
    // Its uid is free again; the old id and uid name nothing.
    await assert.rejects(
      db.sql.transaction((tx) => webhooks.deleteApplication(tx, { tenant, id: a.id })),
      notFound,
    );
    await assert.rejects(
      webhooks.publish(db.sql, { tenant, type: 'x.y', data: {}, application: 'a' }),
      notFound,
    );
    const again = await webhooks.createApplication(db.sql, { tenant, uid: 'a', name: 'A again' });
    assert.notEqual(again.id, a.id);
    // The old event replays to no one: its application is gone, the new one is another.
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: toA.id }), 0);
  });

  test('missing or another tenant’s: ApplicationNotFoundError, nothing deleted', async () => {
    const tenant = nextTenant();
    await webhooks.createApplication(db.sql, { tenant, uid: 'mine', name: 'M' });
    const e = await endpoint(tenant, 'mine');
    for (const [t, id] of [
      [tenant, 'nobody'],
      [`${tenant}-other`, 'mine'],
    ] as const) {
      await assert.rejects(
        db.sql.transaction((tx) => webhooks.deleteApplication(tx, { tenant: t, id })),
        notFound,
      );
    }
    assert.ok(await webhooks.getEndpoint(db.sql, { tenant, id: e.id }));
  });

  test('an endpoint create racing the delete: deleted with it, or refused', {
    skip: needsPostgres,
  }, async () => {
    const tenant = nextTenant();
    /** Resolves once `n` sessions of this file wait for a lock (bounded polling of pg_stat_activity). */
    async function lockWaiters(n: number) {
      for (let i = 0; i < 500; i++) {
        const { rows } = await db.sql.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
            where wait_event_type = 'Lock' and application_name = $1`,
          [`surety-test:${db.schema}`],
        );
        if (rows[0]!.n >= n) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail(`no session of this test waited for a lock`);
    }
    const create = (q: Parameters<Webhooks['createEndpoint']>[0], applicationId: string) =>
      webhooks.createEndpoint(q, { tenant, url: 'http://127.0.0.1:9/r', eventTypes: ['*'], applicationId });

    // 1. The create's transaction is open (its foreign key check holds a key-share lock on the
    // application) when the delete starts: the delete waits, then deletes the new endpoint too.
    const a = await webhooks.createApplication(db.sql, { tenant, uid: 'race', name: 'R' });
    let createdId = '';
    let deleting: Promise<boolean> | undefined;
    await db.sql.transaction(async (tx) => {
      createdId = (await create(tx, a.id)).endpoint.id;
      deleting = db.sql.transaction((tx2) => webhooks.deleteApplication(tx2, { tenant, id: a.id }));
      await lockWaiters(1);
    });
    assert.equal(await deleting, true);
    assert.equal(
      await webhooks.getEndpoint(db.sql, { tenant, id: createdId }),
      undefined,
      'no orphan endpoint',
    );

    // 2. The delete holds the application when the create's insert runs: the create waits, then
    // fails with ApplicationNotFoundError (the foreign key), not a database error.
    const b = await webhooks.createApplication(db.sql, { tenant, uid: 'race2', name: 'R2' });
    let late: Promise<unknown> | undefined;
    await db.sql.transaction(async (tx) => {
      assert.equal(await webhooks.deleteApplication(tx, { tenant, id: b.id }), true);
      late = create(db.sql, b.id);
      late.catch(() => {}); // asserted below, once this transaction has committed
      await lockWaiters(1);
    });
    await assert.rejects(late!, notFound);
    assert.deepEqual((await webhooks.listEndpoints(db.sql, { tenant })).data, []);
  });
});
