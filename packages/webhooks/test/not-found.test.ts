// One not-found rule for the engine's methods (issue 16): a lookup answers undefined for an
// endpoint, event or delivery that is not the tenant's; a mutation of one throws the coded
// EndpointNotFoundError (SURETY_ENDPOINT_NOT_FOUND); a version mismatch is an answer, not an error.
// PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { isEndpointNotFoundError, parseAllowList, Webhooks } from '../src/index.js';

let db: TestDatabase;
let webhooks: Webhooks;
let id: string;
let eventId: string;
const tenant = 'nf';
const missing = { tenant, id: 'we_0000000000000000000000' };
const otherTenant = () => ({ tenant: 'nf-other', id });

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
  });
  await webhooks.migrate();
  const created = await webhooks.createEndpoint(db.sql, {
    tenant,
    url: 'http://127.0.0.1:9/nf',
    eventTypes: ['*'],
  });
  id = created.endpoint.id;
  eventId = (await webhooks.publish(db.sql, { tenant, type: 'order.created', data: {} })).id;
});
after(() => db.close());

const notFound = (e: unknown) => {
  assert.ok(isEndpointNotFoundError(e), `not EndpointNotFoundError: ${String(e)}`);
  assert.equal((e as { code: string }).code, 'SURETY_ENDPOINT_NOT_FOUND');
  return true;
};

describe('lookups answer undefined for what is not the tenant’s', () => {
  test('getEndpoint, getEndpointHealth, getEvent, listAttempts', async () => {
    assert.equal((await webhooks.getEndpoint(db.sql, { tenant, id }))?.id, id);
    assert.equal(await webhooks.getEndpoint(db.sql, missing), undefined);
    assert.equal(await webhooks.getEndpoint(db.sql, otherTenant()), undefined);
    assert.equal((await webhooks.getEndpointHealth(db.sql, { tenant, id }))?.attempts24h, 0);
    assert.equal(await webhooks.getEndpointHealth(db.sql, missing), undefined);
    assert.equal(await webhooks.getEndpointHealth(db.sql, otherTenant()), undefined);
    assert.equal((await webhooks.getEvent(db.sql, { tenant, id: eventId }))?.id, eventId);
    assert.equal(await webhooks.getEvent(db.sql, { tenant: 'nf-other', id: eventId }), undefined);
    assert.equal(await webhooks.listAttempts(db.sql, { tenant, deliveryId: 'dlv_999999' }), undefined);
    const [delivery] = (await webhooks.listDeliveries(db.sql, { tenant, eventId })).data;
    assert.match(delivery!.id, /^dlv_[0-9A-Za-z]{22}$/);
    assert.deepEqual(await webhooks.listAttempts(db.sql, { tenant, deliveryId: delivery!.id }), []);
    assert.equal(
      await webhooks.listAttempts(db.sql, { tenant: 'nf-other', deliveryId: delivery!.id }),
      undefined,
    );
    for (const deliveryId of ['dlv_', 'dlv_0VcZ9a/', `${delivery!.id}\u0000`, 'we_0000000000000000000000'])
      assert.equal(await webhooks.listAttempts(db.sql, { tenant, deliveryId }), undefined, deliveryId);
  });
});

describe('mutations of a missing endpoint throw EndpointNotFoundError', () => {
  for (const [name, ref] of [
    ['missing', () => missing],
    ['another tenant’s', otherTenant],
  ] as const) {
    test(`${name}: update, delete, enable, disable, rotate, recover`, async () => {
      const before = await webhooks.getEndpoint(db.sql, { tenant, id });
      await assert.rejects(
        webhooks.updateEndpoint(db.sql, { ...ref(), ifVersion: 1, patch: { description: 'x' } }),
        notFound,
      );
      await assert.rejects(
        db.sql.transaction((tx) => webhooks.deleteEndpoint(tx, { ...ref(), ifVersion: 1 })),
        notFound,
      );
      await assert.rejects(
        db.sql.transaction((tx) => webhooks.deleteEndpoint(tx, ref())),
        notFound,
      );
      await assert.rejects(webhooks.enableEndpoint(db.sql, ref()), notFound);
      await assert.rejects(
        db.sql.transaction((tx) => webhooks.disableEndpoint(tx, { ...ref(), reason: 'test' })),
        notFound,
      );
      await assert.rejects(webhooks.rotateSecret(db.sql, ref()), notFound);
      await assert.rejects(
        webhooks.recoverEndpoint(db.sql, { tenant: ref().tenant, endpointId: ref().id, since: new Date(0) }),
        notFound,
      );
      assert.deepEqual(
        await webhooks.getEndpoint(db.sql, { tenant, id }),
        before,
        'the real one is untouched',
      );
    });
  }

  test('a version mismatch is an answer (undefined / false), and disabling twice is false', async () => {
    assert.equal(
      await webhooks.updateEndpoint(db.sql, { tenant, id, ifVersion: 99, patch: { description: 'x' } }),
      undefined,
    );
    assert.equal(
      await db.sql.transaction((tx) => webhooks.deleteEndpoint(tx, { tenant, id, ifVersion: 99 })),
      false,
    );
    assert.equal(
      await db.sql.transaction((tx) => webhooks.disableEndpoint(tx, { tenant, id, reason: 'a' })),
      true,
    );
    assert.equal(
      await db.sql.transaction((tx) => webhooks.disableEndpoint(tx, { tenant, id, reason: 'b' })),
      false,
    );
    // Disabling failed the one queued delivery; recovering it counts it (no error for an existing endpoint).
    assert.equal(await webhooks.recoverEndpoint(db.sql, { tenant, endpointId: id, since: new Date(0) }), 1);
    assert.equal(await webhooks.recoverEndpoint(db.sql, { tenant, endpointId: id, since: new Date(0) }), 0);
  });
});
