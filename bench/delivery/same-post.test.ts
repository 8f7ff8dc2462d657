// The peers' job sends the same POST as Surety's worker: one event delivered by a real
// DeliveryWorker and the same event sent by the benchmark's signedRequest reach one recording
// receiver on 127.0.0.1 with the same body and the same headers, signature included (same secret,
// same second).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { Pool } from 'undici';
import {
  API_VERSION,
  bareRequest,
  type EventJob,
  eventJob,
  type Request,
  signedRequest,
} from './same-post.js';

let db: TestDatabase;
const clock = Date.parse('2026-12-02T01:00:00.123Z');
before(async () => {
  db = await createTestDatabase();
});
after(() => db.close());

async function send(port: number, r: Request) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
  try {
    const res = await pool.request({ path: '/hooks', method: 'POST', body: r.body, headers: r.headers });
    await res.body.dump();
    assert.equal(res.statusCode, 204);
  } finally {
    await pool.close();
  }
}

test("signedRequest sends the bytes and headers Surety's worker sends for the same event", async () => {
  const webhooks = new Webhooks({
    sql: db.sql,
    schema: db.schema,
    allowHttp: true,
    allowList: parseAllowList('127.0.0.1/32'),
    now: () => clock,
  });
  await webhooks.migrate();
  assert.equal(webhooks.apiVersion, API_VERSION);
  const rx = await startReceiver();
  try {
    const { secret } = await webhooks.createEndpoint(db.sql, {
      tenant: 'bench',
      url: rx.url,
      eventTypes: ['*'],
    });
    const data = JSON.parse(eventJob(7, clock).data) as unknown;
    await db.sql.transaction((tx) => webhooks.publish(tx, { tenant: 'bench', type: 'order.created', data }));
    const worker = new DeliveryWorker({
      webhooks,
      listen: false,
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    assert.equal(await worker.drain(), 1);
    await worker.stop();
    const surety = rx.received[0]!;
    const envelope = JSON.parse(surety.body) as EventJob & { data: unknown };
    // The event as the benchmark's pg-boss job carries it: Surety's id, sequence and time for this one.
    const job: EventJob = { ...eventJob(7, clock), id: envelope.id, sequence: envelope.sequence };
    assert.equal(envelope.createdAt, job.createdAt);
    await send(rx.port, signedRequest(job, [secret], clock));
    const peer = rx.received[1]!;
    assert.equal(peer.body, surety.body);
    const named = (h: typeof surety.headers) =>
      Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'host' && k !== 'connection'));
    assert.deepEqual(named(peer.headers), named(surety.headers));
    assert.match(String(peer.headers['webhook-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);

    await send(rx.port, bareRequest(job));
    const bare = rx.received[2]!;
    assert.equal(bare.body, surety.body);
    assert.deepEqual(
      Object.keys(bare.headers).filter((k) => k.startsWith('webhook-') || k === 'user-agent'),
      [],
    );
  } finally {
    await rx.close();
  }
});

test("eventJob's id has the shape and length of Surety's event ids", () => {
  const a = eventJob(0, clock);
  const b = eventJob(123_456, clock);
  assert.match(a.id, /^evt_[0-9A-Za-z]{22}$/);
  assert.match(b.id, /^evt_[0-9A-Za-z]{22}$/);
  assert.notEqual(a.id, b.id);
});
