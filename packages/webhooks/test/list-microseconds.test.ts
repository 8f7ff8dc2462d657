// Lists page by (created_at, id), and timestamptz keeps microseconds: rows written by SQL (an
// import, a backfill, now() in a script) differ within one millisecond. A page that ends inside
// such a millisecond must hand out a cursor that resumes exactly after its last row: every row
// once, in the list's order, whatever the page size.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { keysetCursor } from '@surety/db';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { type Page, parseAllowList, Webhooks } from '../src/index.js';

let db: TestDatabase;
let webhooks: Webhooks;
const AT = Date.parse('2026-11-30T10:00:03.123Z');
// Seven rows in one millisecond (two pairs tied to the microsecond, broken by id), one the
// millisecond before and one after: page boundaries of 1, 2 and 3 rows fall inside it.
const OFFSETS_US = [0, 1, 456, 456, 999, 500, 500, -1, 1000];
const at = (us: number) => {
  const ms = AT + Math.floor(us / 1000);
  const frac = String(((us % 1000) + 1000) % 1000).padStart(3, '0');
  return `${new Date(ms).toISOString().slice(0, -1)}${frac}Z`;
};

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => AT,
  });
  await webhooks.migrate();
});
after(() => db.close());

/** Sets the rows' created_at, in creation order, to the offsets' instants. */
async function spread(table: string, tenant: string, ids: string[]) {
  assert.equal(ids.length, OFFSETS_US.length);
  for (const [i, id] of ids.entries()) {
    await db.sql.query(
      `update "${db.schema}".${table} set created_at = $3::timestamptz where tenant = $1 and id = $2`,
      [tenant, id, at(OFFSETS_US[i]!)],
    );
  }
}

/** The ids as the database orders them, newest first. */
async function expected(table: string, tenant: string, where = 'true', params: unknown[] = []) {
  const { rows } = await db.sql.query<{ id: string; us: string }>(
    `select id, to_char(created_at at time zone 'UTC', 'SS.US') as us from "${db.schema}".${table}
      where tenant = $1 and ${where} order by created_at desc, id desc`,
    [tenant, ...params],
  );
  // The setup did what it says: distinct microseconds of one millisecond, and ties.
  assert.equal(new Set(rows.map((r) => r.us)).size, OFFSETS_US.length - 2, JSON.stringify(rows));
  return rows.map((r) => r.id);
}

/** Every page of a list, in order, with `limit` rows a page (bounded). */
async function walk(
  list: (cursor: string | undefined, limit: number) => Promise<Page<{ id: string }>>,
  limit: number,
) {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await list(cursor, limit);
    seen.push(...page.data.map((r) => r.id));
    if (!page.nextCursor) return seen;
    cursor = page.nextCursor;
  }
  throw new Error(`more than 20 pages of ${limit}: ${seen.join(' ')}`);
}

async function assertPages(
  name: string,
  ids: string[],
  list: (cursor: string | undefined, limit: number) => Promise<Page<{ id: string }>>,
) {
  for (const limit of [1, 2, 3, 4]) {
    assert.deepEqual(await walk(list, limit), ids, `${name}, pages of ${limit}`);
  }
}

const cursorOf = (c: string | undefined) => (c === undefined ? {} : { cursor: c });

test('applications: a page that ends inside a millisecond resumes after its last row', async () => {
  const ids: string[] = [];
  for (const i of OFFSETS_US.keys()) {
    ids.push((await webhooks.createApplication(db.sql, { tenant: 'ap', name: `a${i}` })).id);
  }
  await spread('webhook_applications', 'ap', ids);
  await assertPages('applications', await expected('webhook_applications', 'ap'), (c, limit) =>
    webhooks.listApplications(db.sql, { tenant: 'ap', limit, ...cursorOf(c) }),
  );
});

test('endpoints: a page that ends inside a millisecond resumes after its last row', async () => {
  const ids: string[] = [];
  for (const _ of OFFSETS_US) {
    const { endpoint } = await webhooks.createEndpoint(db.sql, {
      tenant: 'ep',
      url: 'http://127.0.0.1:9/ep',
      eventTypes: ['*'],
    });
    ids.push(endpoint.id);
  }
  await spread('webhook_endpoints', 'ep', ids);
  await assertPages('endpoints', await expected('webhook_endpoints', 'ep'), (c, limit) =>
    webhooks.listEndpoints(db.sql, { tenant: 'ep', limit, ...cursorOf(c) }),
  );
});

test('events and deliveries: a page that ends inside a millisecond resumes after its last row', async (t) => {
  // Events of a tenant without endpoints (moving an event's created_at would part it from the
  // event_created_at its deliveries recorded); deliveries of another tenant's endpoint.
  const events: string[] = [];
  const deliveries: string[] = [];
  const { endpoint } = await webhooks.createEndpoint(db.sql, {
    tenant: 'dl',
    url: 'http://127.0.0.1:9/dl',
    eventTypes: ['*'],
  });
  for (const i of OFFSETS_US.keys()) {
    await db.sql.transaction(async (tx) => {
      events.push((await webhooks.publish(tx, { tenant: 'ev', type: 'order.created', data: { i } })).id);
      await webhooks.publish(tx, { tenant: 'dl', type: 'order.created', data: { i } });
    });
  }
  const { rows } = await db.sql.query<{ id: string }>(
    `select id from "${db.schema}".webhook_deliveries where tenant = 'dl' order by sequence`,
  );
  deliveries.push(...rows.map((r) => r.id));
  await spread('webhook_events', 'ev', events);
  await spread('webhook_deliveries', 'dl', deliveries);
  const ofType = await expected('webhook_events', 'ev', 'type = $2', ['order.created']);
  const byTime = await expected('webhook_deliveries', 'dl');
  await t.test('events', async () => {
    await assertPages('events', await expected('webhook_events', 'ev'), (c, limit) =>
      webhooks.listEvents(db.sql, { tenant: 'ev', limit, ...cursorOf(c) }),
    );
    await assertPages('events of a type', ofType, (c, limit) =>
      webhooks.listEvents(db.sql, { tenant: 'ev', type: 'order.created', limit, ...cursorOf(c) }),
    );
  });
  await t.test('deliveries', async () => {
    await assertPages('deliveries', byTime, (c, limit) =>
      webhooks.listDeliveries(db.sql, { tenant: 'dl', limit, ...cursorOf(c) }),
    );
    await assertPages('deliveries of an endpoint', byTime, (c, limit) =>
      webhooks.listDeliveries(db.sql, { tenant: 'dl', endpointId: endpoint.id, limit, ...cursorOf(c) }),
    );
  });
});

test('a cursor handed out before (milliseconds only) still pages from its instant', async () => {
  // Such a cursor names the row's time truncated to the millisecond: it resumes at rows before
  // that instant, as it did when it was handed out.
  const ids: string[] = [];
  for (const i of OFFSETS_US.keys()) {
    ids.push((await webhooks.createApplication(db.sql, { tenant: 'old', name: `a${i}` })).id);
  }
  await spread('webhook_applications', 'old', ids);
  const all = await expected('webhook_applications', 'old');
  const old = keysetCursor('timestamp', 'text').encode([new Date(AT).toISOString(), 'app_']);
  const page = await webhooks.listApplications(db.sql, { tenant: 'old', cursor: old, limit: 20 });
  // Only the row the millisecond before sorts before (…03.123000, 'app_').
  assert.deepEqual(
    page.data.map((a) => a.id),
    all.slice(-1),
  );
  assert.equal(page.hasMore, false);
});

test('the cursor after a row of a whole millisecond is the one earlier versions handed out', async () => {
  for (const name of ['x', 'y']) await webhooks.createApplication(db.sql, { tenant: 'ms', name });
  const first = await webhooks.listApplications(db.sql, { tenant: 'ms', limit: 1 });
  const last = first.data[0]!;
  assert.equal(first.nextCursor, keysetCursor('timestamp', 'text').encode([last.createdAt, last.id]));
  assert.equal(
    Buffer.from(first.nextCursor!, 'base64url').toString(),
    JSON.stringify(['2026-11-30T10:00:03.123Z', last.id]),
  );
});
