// Payload filters per endpoint (issue 37, migration 000017): evaluated in the publishing statement,
// so a delivery exists only for the endpoints whose filter the event passes; a named endpoint (test
// events, a named replay) gets it whatever its filter; a refused filter changes nothing.
// PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { FILTER_MAX_DATA_DEPTH, isInvalidFilterError, parseAllowList, Webhooks } from '../src/index.js';

let db: TestDatabase;
let webhooks: Webhooks;
let n = 0;

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
});
after(() => db.close());

const create = (tenant: string, filter: Record<string, unknown> | null | undefined, eventTypes = ['*']) =>
  webhooks
    .createEndpoint(db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/',
      eventTypes,
      ...(filter === undefined ? {} : { filter }),
    })
    .then((r) => r.endpoint);

/** The endpoints that got a delivery of the event. */
async function reached(tenant: string, eventId: string): Promise<string[]> {
  const { rows } = await db.sql.query<{ endpoint_id: string }>(
    `select endpoint_id from ${db.schema}.webhook_deliveries where tenant = $1 and event_id = $2 order by endpoint_id`,
    [tenant, eventId],
  );
  return rows.map((r) => r.endpoint_id);
}

const publish = (
  tenant: string,
  type: string,
  data: unknown,
  extra: { endpointId?: string; resource?: string } = {},
) => db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type, data, ...extra }));

describe('filters at fan-out', () => {
  test('only the endpoints whose filter passes get a delivery; no filter gets all', async () => {
    const tenant = `f${++n}`;
    const all = await create(tenant, undefined);
    const big = await create(tenant, { 'data.amount': { $gte: 100 } });
    const eu = await create(tenant, { 'data.currency': { $in: ['EUR', 'GBP'] }, type: 'order.paid' });
    const vip = await create(tenant, { $or: [{ 'data.tags': 'vip' }, { resource: 'order:vip' }] });
    assert.equal(big.filter?.['data.amount'] !== undefined, true, 'the filter is returned as written');
    assert.equal(all.filter, null);

    const e1 = await publish(tenant, 'order.paid', { amount: 150, currency: 'EUR', tags: ['new'] });
    assert.equal(e1.deliveries, 3);
    assert.deepEqual(await reached(tenant, e1.id), [all.id, big.id, eu.id].sort());
    const e2 = await publish(tenant, 'order.created', { amount: 5, currency: 'EUR', tags: ['vip'] });
    assert.deepEqual(await reached(tenant, e2.id), [all.id, vip.id].sort());
    const e3 = await publish(tenant, 'order.created', { amount: '500' }, { resource: 'order:vip' });
    assert.deepEqual(await reached(tenant, e3.id), [all.id, vip.id].sort(), '"500" is not a number');
  });

  test('an update changes the filter, null removes it; the event types still apply', async () => {
    const tenant = `f${++n}`;
    const ep = await create(tenant, { 'data.n': 1 }, ['thing.done']);
    assert.equal((await publish(tenant, 'thing.done', { n: 2 })).deliveries, 0);
    const changed = await webhooks.updateEndpoint(db.sql, {
      tenant,
      id: ep.id,
      ifVersion: ep.version,
      patch: { filter: { 'data.n': 2 } },
    });
    assert.deepEqual(changed?.filter, { 'data.n': 2 });
    assert.equal((await publish(tenant, 'thing.done', { n: 2 })).deliveries, 1);
    const kept = await webhooks.updateEndpoint(db.sql, {
      tenant,
      id: ep.id,
      ifVersion: changed!.version,
      patch: { description: 'x' },
    });
    assert.deepEqual(kept?.filter, { 'data.n': 2 }, 'a patch without filter keeps it');
    const cleared = await webhooks.updateEndpoint(db.sql, {
      tenant,
      id: ep.id,
      ifVersion: kept!.version,
      patch: { filter: null },
    });
    assert.equal(cleared?.filter, null);
    assert.equal((await publish(tenant, 'thing.done', { n: 3 })).deliveries, 1);
    assert.equal((await publish(tenant, 'other.done', { n: 3 })).deliveries, 0);
  });

  test('a named endpoint gets the event whatever its filter; a replay to all honours filters', async () => {
    const tenant = `f${++n}`;
    const ep = await create(tenant, { 'data.n': 1 });
    const other = await create(tenant, { 'data.n': 2 });
    const test = await publish(tenant, 'webhook.test', { n: 9 }, { endpointId: ep.id });
    assert.deepEqual(await reached(tenant, test.id), [ep.id]);
    const e = await publish(tenant, 'thing.done', { n: 2 });
    assert.deepEqual(await reached(tenant, e.id), [other.id]);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: e.id }), 1);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: e.id, endpointId: ep.id }), 1);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: 'evt_missing' }), 0);
  });

  test(`a payload nested deeper than ${FILTER_MAX_DATA_DEPTH} levels reaches no filtered endpoint, and publishes`, async () => {
    const tenant = `f${++n}`;
    const plain = await create(tenant, undefined);
    await create(tenant, { 'data.x': { $exists: false } });
    let deep: unknown = 1;
    for (let i = 0; i < 3000; i++) deep = [deep];
    const e = await publish(tenant, 'thing.deep', { deep });
    assert.deepEqual(await reached(tenant, e.id), [plain.id]);
    assert.equal(await webhooks.replayEvent(db.sql, { tenant, eventId: e.id }), 1);
  });

  test('a refused filter throws InvalidFilterError and changes nothing', async () => {
    const tenant = `f${++n}`;
    await assert.rejects(create(tenant, { 'data.a': { $regex: 'x' } }), isInvalidFilterError);
    const ep = await create(tenant, { 'data.a': 1 });
    await assert.rejects(
      webhooks.updateEndpoint(db.sql, {
        tenant,
        id: ep.id,
        ifVersion: ep.version,
        patch: { filter: { $and: [] }, description: 'not this either' },
      }),
      isInvalidFilterError,
    );
    const now = await webhooks.getEndpoint(db.sql, { tenant, id: ep.id });
    assert.equal(now?.version, ep.version);
    assert.deepEqual(now?.filter, { 'data.a': 1 });
    const page = await webhooks.listEndpoints(db.sql, { tenant });
    assert.equal(page.data.length, 1);
  });
});
