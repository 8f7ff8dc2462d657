// A library user calling the engine directly with what PostgreSQL cannot store (a NUL, a lone
// surrogate, a year-0 date, a forged cursor) gets the package's coded errors, never a raw
// database error, and nothing is written. PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import {
  isInvalidEventError,
  isInvalidInputError,
  parseAllowList,
  WebhookError,
  Webhooks,
} from '../src/index.js';

let db: TestDatabase;
let webhooks: Webhooks;
let endpointId: string;
const tenant = 'lib';

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
    url: 'http://127.0.0.1:9/lib',
    eventTypes: ['*'],
  });
  endpointId = created.endpoint.id;
});
after(() => db.close());

const BAD = ['a\u0000b', '\ud800', 'x\udc00'];

async function rows(): Promise<string> {
  const s = `"${db.schema}"`;
  const { rows } = await db.sql.query<{ n: string }>(
    `select (select count(*) from ${s}.webhook_events) || '/' || (select count(*) from ${s}.webhook_deliveries)
            || '/' || (select string_agg(e::text, ',' order by id) from ${s}.webhook_endpoints e) as n`,
  );
  return rows[0]!.n;
}

/** Runs `fn`, expects the coded error `guard` accepts, and that nothing was written. */
async function refused(fn: () => Promise<unknown>, guard: (e: unknown) => boolean, path?: string) {
  const before = await rows();
  await assert.rejects(fn, (e: unknown) => {
    assert.ok(guard(e), `not the expected coded error: ${String(e)} (${(e as { code?: string }).code})`);
    if (path) assert.equal((e as { errors: { path: string }[] }).errors[0]?.path, path);
    return true;
  });
  assert.equal(await rows(), before);
}

describe('library calls with strings PostgreSQL cannot store', () => {
  for (const bad of BAD) {
    const label = JSON.stringify(bad);
    test(`publish: ${label} in data values, data keys, resource and tenant → InvalidEventError`, async () => {
      const publish = (input: Partial<Parameters<Webhooks['publish']>[1]>) =>
        db.sql.transaction((tx) =>
          webhooks.publish(tx, { tenant, type: 'order.created', data: {}, ...input }),
        );
      await refused(() => publish({ data: { customerId: bad } }), isInvalidEventError, '/data/customerId');
      await refused(() => publish({ data: { metadata: { [bad]: 'v' } } }), isInvalidEventError);
      await refused(() => publish({ data: [{ deep: [bad] }] }), isInvalidEventError, '/data/0/deep/0');
      await refused(() => publish({ resource: `order:${bad}` }), isInvalidEventError, '/resource');
      await refused(() => publish({ tenant: bad }), isInvalidEventError, '/tenant');
    });

    test(`endpoints: ${label} in description, event types, update, disable reason, ids, list filters → InvalidInputError`, async () => {
      const create = (input: Record<string, unknown>) =>
        webhooks.createEndpoint(db.sql, {
          tenant,
          url: 'http://127.0.0.1:9/x',
          eventTypes: ['*'],
          ...input,
        });
      await refused(() => create({ description: bad }), isInvalidInputError, '/description');
      await refused(() => create({ eventTypes: ['*', bad] }), isInvalidInputError, '/eventTypes/1');
      await refused(
        () =>
          webhooks.updateEndpoint(db.sql, {
            tenant,
            id: endpointId,
            ifVersion: 1,
            patch: { description: bad },
          }),
        isInvalidInputError,
        '/description',
      );
      await refused(
        () =>
          db.sql.transaction((tx) =>
            webhooks.disableEndpoint(tx, { tenant, id: endpointId, reason: `because ${bad}` }),
          ),
        isInvalidInputError,
        '/reason',
      );
      await refused(() => webhooks.getEndpoint(db.sql, { tenant, id: bad }), isInvalidInputError, '/id');
      await refused(
        () => webhooks.replayEvent(db.sql, { tenant, eventId: bad }),
        isInvalidInputError,
        '/eventId',
      );
      await refused(() => webhooks.listEvents(db.sql, { tenant, resource: bad }), isInvalidInputError);
    });
  }

  test('a date a timestamptz parameter cannot carry → InvalidInputError', async () => {
    for (const since of [
      new Date('0000-01-01T00:00:00Z'),
      new Date('+010000-01-01T00:00:00Z'),
      new Date('nope'),
    ]) {
      await refused(
        () => webhooks.recoverEndpoint(db.sql, { tenant, endpointId, since }),
        isInvalidInputError,
        '/since',
      );
      await refused(() => webhooks.listEvents(db.sql, { tenant, since }), isInvalidInputError, '/since');
    }
  });

  test('forged cursors → WebhookError SURETY_INVALID_CURSOR on every list', async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const isCursorError = (e: unknown) => e instanceof WebhookError && e.code === 'SURETY_INVALID_CURSOR';
    for (const cursor of [
      b64(['not-a-date', 'x']),
      b64([123, 'x']),
      b64(['0', 'x']),
      b64(['2026-01-01T00:00:00.000Z', 'a\u0000']),
    ]) {
      await refused(() => webhooks.listEvents(db.sql, { tenant, cursor }), isCursorError);
      await refused(() => webhooks.listEndpoints(db.sql, { tenant, cursor }), isCursorError);
    }
    for (const cursor of [b64(['abc']), b64([1e30]), b64([9.5]), b64(['99999999999999999999'])]) {
      await refused(() => webhooks.listDeliveries(db.sql, { tenant, endpointId, cursor }), isCursorError);
    }
  });

  test('what can be stored still is, byte for byte (no silent repair)', async () => {
    const text = 'é 日本 😀 \u0001 \ufffe \\u0000';
    const { endpoint } = await webhooks.createEndpoint(db.sql, {
      tenant,
      url: 'http://127.0.0.1:9/ok',
      eventTypes: ['*'],
      description: text,
    });
    assert.equal((await webhooks.getEndpoint(db.sql, { tenant, id: endpoint.id }))!.description, text);
    const published = await db.sql.transaction((tx) =>
      webhooks.publish(tx, { tenant, type: 'order.created', data: { [text]: text }, resource: text }),
    );
    const page = await webhooks.listEvents(db.sql, { tenant, resource: text });
    assert.equal(page.data[0]?.id, published.id);
    assert.deepEqual(page.data[0]?.data, { [text]: text });
  });
});
