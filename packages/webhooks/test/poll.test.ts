// Pull delivery (issue 36): a poll endpoint's consumer reads its events past a durable cursor and
// acknowledges by moving it. Two consumers of one application each get every event, in order,
// across a new engine over the same database (a restart); a transaction that commits late is
// read after the ones that committed before it, never skipped (PostgreSQL); cursors are
// tamper-proof; no worker ever claims a poll delivery; replay and recover reach the consumer again.
// PGlite, and PostgreSQL with DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { needsPostgres } from '@surety/db/testing';
import {
  DeliveryWorker,
  isEndpointNotFoundError,
  isNotPollEndpointError,
  isPollLimitError,
  isWebhookError,
  PollWaits,
  Webhooks,
} from '../src/index.js';
import { LOOPBACK, useEngine } from './fixture.js';

const fx = useEngine({ database: { max: 6 }, tenantPrefix: 'poll' });
const nextTenant = fx.fresh;
/** Another engine on the same database (a restart). */
const engine = () =>
  new Webhooks({ sql: fx.db.sql, schema: fx.db.schema, allowHttp: true, allowList: LOOPBACK });

const pollEndpoint = async (w: Webhooks, tenant: string, applicationId?: string) =>
  (await w.createEndpoint(fx.db.sql, { tenant, kind: 'poll', eventTypes: ['*'], applicationId })).endpoint.id;

const publish = (w: Webhooks, tenant: string, n: number, application?: string) =>
  fx.db.sql.transaction(async (tx) => {
    const ids: string[] = [];
    for (let k = 0; k < n; k++)
      ids.push((await w.publish(tx, { tenant, type: 'order.created', data: { k }, application })).id);
    return ids;
  });

/** Reads pages of `limit` (acknowledging each) until one is empty; the event ids in the order read. */
async function consume(w: Webhooks, tenant: string, id: string, limit: number, maxPages = 100) {
  const seen: string[] = [];
  for (let page = 0; page < maxPages; page++) {
    const p = await w.readPoll(fx.db.sql, { tenant, id, limit });
    if (p.data.length === 0) return seen;
    for (const item of p.data) {
      const envelope = JSON.parse(item.envelope);
      assert.equal(envelope.id, item.eventId);
      seen.push(item.eventId);
    }
    await fx.db.sql.transaction((tx) => w.ackPoll(tx, { tenant, id, cursor: p.cursor }));
  }
  throw new Error('still reading after maxPages');
}

test('two consumers of one application each get every event, in order, across a restart', async () => {
  const tenant = nextTenant();
  const app = await fx.webhooks.createApplication(fx.db.sql, { tenant, name: 'Consumers' });
  const a = await pollEndpoint(fx.webhooks, tenant, app.id);
  const b = await pollEndpoint(fx.webhooks, tenant, app.id);
  const first = await publish(fx.webhooks, tenant, 12, app.id);
  await publish(fx.webhooks, tenant, 3); // the tenant's own: neither consumer's
  // A reads two pages of five and acknowledges them; B reads one page and acknowledges nothing.
  const readA: string[] = [];
  for (let k = 0; k < 2; k++) {
    const p = await fx.webhooks.readPoll(fx.db.sql, { tenant, id: a, limit: 5 });
    readA.push(...p.data.map((d) => d.eventId));
    await fx.db.sql.transaction((tx) => fx.webhooks.ackPoll(tx, { tenant, id: a, cursor: p.cursor }));
  }
  const unacked = await fx.webhooks.readPoll(fx.db.sql, { tenant, id: b, limit: 5 });
  assert.deepEqual(
    unacked.data.map((d) => d.eventId),
    first.slice(0, 5),
  );

  // The restart: a new engine over the same database.
  const restarted = engine();
  const more = await publish(restarted, tenant, 7, app.uid ?? app.id);
  readA.push(...(await consume(restarted, tenant, a, 4)));
  assert.deepEqual(readA, [...first, ...more], 'A: every event once, in order');
  const readB = await consume(restarted, tenant, b, 100);
  assert.deepEqual(
    readB,
    [...first, ...more],
    'B: from its acknowledged cursor: what it read unacknowledged again',
  );

  // Acknowledged: the deliveries listing shows them delivered; nothing more to read.
  const deliveries = await restarted.listDeliveries(fx.db.sql, { tenant, endpointId: a, limit: 100 });
  assert.equal(deliveries.data.length, 19);
  assert.ok(deliveries.data.every((d) => d.status === 'delivered'));
  assert.equal((await restarted.readPoll(fx.db.sql, { tenant, id: b })).data.length, 0);
});

test('reading after a cursor does not acknowledge; an older acknowledgement changes nothing', async () => {
  const tenant = nextTenant();
  const id = await pollEndpoint(fx.webhooks, tenant);
  const ids = await publish(fx.webhooks, tenant, 6);
  const p1 = await fx.webhooks.readPoll(fx.db.sql, { tenant, id, limit: 2 });
  const p2 = await fx.webhooks.readPoll(fx.db.sql, { tenant, id, limit: 2, after: p1.cursor });
  assert.deepEqual(
    p2.data.map((d) => d.eventId),
    ids.slice(2, 4),
  );
  const again = await fx.webhooks.readPoll(fx.db.sql, { tenant, id, limit: 2 });
  assert.deepEqual(
    again.data.map((d) => d.eventId),
    ids.slice(0, 2),
    'nothing acknowledged yet',
  );
  const acked = await fx.db.sql.transaction((tx) =>
    fx.webhooks.ackPoll(tx, { tenant, id, cursor: p2.cursor }),
  );
  assert.equal(acked.acknowledged, 4);
  const older = await fx.db.sql.transaction((tx) =>
    fx.webhooks.ackPoll(tx, { tenant, id, cursor: p1.cursor }),
  );
  assert.equal(older.acknowledged, 0);
  assert.equal(older.cursor, p2.cursor, 'the cursor never moves back');
  const rest = await fx.webhooks.readPoll(fx.db.sql, { tenant, id, after: p1.cursor });
  assert.deepEqual(
    rest.data.map((d) => d.eventId),
    ids.slice(4),
    'never before the acknowledged cursor',
  );
});

test("a forged or edited cursor is refused; another endpoint's cursor names nothing here", async () => {
  const tenant = nextTenant();
  const id = await pollEndpoint(fx.webhooks, tenant);
  const other = await pollEndpoint(fx.webhooks, tenant);
  const theirs = await pollEndpoint(fx.webhooks, nextTenant());
  await publish(fx.webhooks, tenant, 3);
  const page = await fx.webhooks.readPoll(fx.db.sql, { tenant, id, limit: 1 });
  const [body, mac] = page.cursor.slice(3).split('.') as [string, string];
  const payload = Buffer.from(body, 'base64url').toString();
  const edited = `pc_${Buffer.from(payload.replace(/^\d+/, '3')).toString('base64url')}.${mac}`;
  const invalid = (e: unknown) => isWebhookError(e) && e.code === 'SURETY_INVALID_CURSOR';
  for (const cursor of [
    'x',
    'pc_',
    `pc_${body}.AAAAAAAAAAAAAAAAAAAAAA`,
    edited,
    `${page.cursor}x`,
    'pc_%%.%%',
  ]) {
    await assert.rejects(fx.webhooks.readPoll(fx.db.sql, { tenant, id, after: cursor }), invalid, cursor);
    await assert.rejects(
      fx.db.sql.transaction((tx) => fx.webhooks.ackPoll(tx, { tenant, id, cursor })),
      invalid,
      cursor,
    );
  }
  const otherCursor = (await fx.webhooks.readPoll(fx.db.sql, { tenant, id: other })).cursor;
  await assert.rejects(
    fx.webhooks.readPoll(fx.db.sql, { tenant, id, after: otherCursor }),
    isEndpointNotFoundError,
  );
  await assert.rejects(
    fx.db.sql.transaction((tx) => fx.webhooks.ackPoll(tx, { tenant, id, cursor: otherCursor })),
    isEndpointNotFoundError,
  );
  // Another tenant's endpoint is not this tenant's: a 404 whatever the cursor.
  await assert.rejects(fx.webhooks.readPoll(fx.db.sql, { tenant, id: theirs }), isEndpointNotFoundError);
  const hook = await fx.webhooks.createEndpoint(fx.db.sql, {
    tenant,
    url: 'http://127.0.0.1:9/x',
    eventTypes: ['*'],
  });
  await assert.rejects(
    fx.webhooks.readPoll(fx.db.sql, { tenant, id: hook.endpoint.id }),
    isNotPollEndpointError,
  );
  // Nothing was acknowledged by any of it.
  assert.equal((await fx.webhooks.readPoll(fx.db.sql, { tenant, id })).data.length, 3);
});

test('no worker claims a poll delivery; replay and recover reach the consumer again, past its cursor', async () => {
  const tenant = nextTenant();
  const id = await pollEndpoint(fx.webhooks, tenant);
  const [e1] = await publish(fx.webhooks, tenant, 1);
  const worker = new DeliveryWorker({ webhooks: fx.webhooks, listen: false, guard: { allowHttp: true } });
  assert.equal(await worker.drain(), 0, 'nothing for a worker');
  const attempts = await fx.db.sql.query<{ n: number }>(
    `select count(*)::int as n from "${fx.db.schema}".webhook_attempts where tenant = $1`,
    [tenant],
  );
  assert.equal(attempts.rows[0]!.n, 0);
  assert.deepEqual(await consume(fx.webhooks, tenant, id, 10), [e1]);
  assert.equal(await fx.webhooks.replayEvent(fx.db.sql, { tenant, eventId: e1!, endpointId: id }), 1);
  assert.deepEqual(await consume(fx.webhooks, tenant, id, 10), [e1], 'the replay, past the cursor');
  // Disabled: its pending deliveries fail; enabled and recovered: read again, at new positions.
  await publish(fx.webhooks, tenant, 2);
  await fx.db.sql.transaction((tx) => fx.webhooks.disableEndpoint(tx, { tenant, id, reason: 'test' }));
  await fx.webhooks.enableEndpoint(fx.db.sql, { tenant, id });
  assert.equal((await fx.webhooks.readPoll(fx.db.sql, { tenant, id })).data.length, 0);
  assert.equal(
    await fx.webhooks.recoverEndpoint(fx.db.sql, { tenant, endpointId: id, since: new Date(0) }),
    2,
  );
  assert.equal(await worker.drain(), 0, 'recovered, still not a worker’s');
  assert.equal((await consume(fx.webhooks, tenant, id, 10)).length, 2);
  await worker.stop();
});

test('long-poll waits: a cap per tenant, woken by a NOTIFY, ended by close', async () => {
  const waits = new PollWaits(fx.webhooks, { maxPerTenant: 2, checkMs: 60_000 });
  const r1 = waits.acquire('t1');
  const r2 = waits.acquire('t1');
  assert.throws(() => waits.acquire('t1'), isPollLimitError);
  const r3 = waits.acquire('t2'); // another tenant has its own slots
  r1();
  r1(); // twice gives back one slot, once
  const r4 = waits.acquire('t1');
  assert.throws(() => waits.acquire('t1'), isPollLimitError);
  assert.equal(waits.held(), 3);
  for (const r of [r2, r3, r4]) r();
  assert.equal(waits.held(), 0);
  // A NOTIFY on the engine's channel (what a publish sends after COMMIT) ends a wait long before its time.
  const tenant = nextTenant();
  await pollEndpoint(fx.webhooks, tenant);
  const started = Date.now();
  const waiting = waits.wait(20_000);
  setTimeout(() => void publish(fx.webhooks, tenant, 1), 50);
  await waiting;
  assert.ok(Date.now() - started < 10_000, `woken after ${Date.now() - started} ms`);
  const ended = waits.wait(20_000);
  await waits.close();
  await ended;
});

describe('on PostgreSQL', { skip: needsPostgres }, () => {
  test('a transaction that commits late is read after what committed before it, never skipped', async () => {
    const tenant = nextTenant();
    const id = await pollEndpoint(fx.webhooks, tenant);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let published!: () => void;
    const inside = new Promise<void>((r) => {
      published = r;
    });
    // The late one takes its delivery id and sequence first, and commits last.
    const late = fx.db.sql.transaction(async (tx) => {
      const e = await fx.webhooks.publish(tx, { tenant, type: 'order.created', data: { late: true } });
      published();
      await held;
      return e.id;
    });
    await inside;
    const [early] = await publish(fx.webhooks, tenant, 1);
    const p1 = await fx.webhooks.readPoll(fx.db.sql, { tenant, id });
    assert.deepEqual(
      p1.data.map((d) => d.eventId),
      [early],
    );
    await fx.db.sql.transaction((tx) => fx.webhooks.ackPoll(tx, { tenant, id, cursor: p1.cursor }));
    release();
    const lateId = await late;
    const p2 = await fx.webhooks.readPoll(fx.db.sql, { tenant, id });
    assert.deepEqual(
      p2.data.map((d) => d.eventId),
      [lateId],
      'the late commit is past the acknowledged cursor',
    );
  });

  test('concurrent reads of one consumer give each delivery one position, in one order', async () => {
    const tenant = nextTenant();
    const id = await pollEndpoint(fx.webhooks, tenant);
    const ids = await publish(fx.webhooks, tenant, 40);
    const pages = await Promise.all(
      Array.from({ length: 4 }, () => fx.webhooks.readPoll(fx.db.sql, { tenant, id, limit: 10 })),
    );
    for (const p of pages) assert.ok(p.data.length > 0);
    const positions = await fx.db.sql.query<{ event_id: string; poll_position: string }>(
      `select d.event_id, d.poll_position::text as poll_position from "${fx.db.schema}".webhook_deliveries d
        where d.tenant = $1 and d.poll_position is not null order by d.poll_position`,
      [tenant],
    );
    const seen = positions.rows.map((r) => r.event_id);
    assert.deepEqual(seen, ids.slice(0, seen.length), 'positions follow the publish order');
    assert.deepEqual(
      positions.rows.map((r) => Number(r.poll_position)),
      seen.map((_, k) => k + 1),
      'one position each, no gap, no repeat',
    );
    assert.deepEqual(await consume(fx.webhooks, tenant, id, 7), ids);
  });
});
