// A broker's host goes through the webhook URL's SSRF rules (issue 36): checked at create when it
// is an IP literal, resolved and checked at every attempt, and the connection made to the checked
// address. Decisions on other addresses use an injected resolver that records; end to end, a canary
// listens on 127.0.0.2, a loopback address outside the allow-list, and must never be reached.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, isInvalidInputError, parseAllowList, Webhooks } from '../src/index.js';
import type { ResolvedAddress } from '../src/ssrf.js';
import { installed, listening } from './brokers.js';

let db: TestDatabase;
let webhooks: Webhooks;
const allowList = parseAllowList('127.0.0.1/32');
let n = 0;
const natsUp = installed('nats-server') && (await listening(4222));

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({ sql: db.sql, schema: db.schema, allowHttp: true, allowList });
  await webhooks.migrate();
});
after(() => db.close());

const codes = (tenant: string) =>
  db.sql
    .query<{ error_code: string | null }>(
      `select a.error_code from "${db.schema}".webhook_attempts a
        join "${db.schema}".webhook_deliveries d on d.id = a.delivery_id where d.tenant = $1`,
      [tenant],
    )
    .then((r) => r.rows.map((x) => x.error_code));

/** Publishes one event to a nats endpoint at `url` and runs a worker whose resolver answers `answers`. */
async function attempt(url: string, answers: readonly ResolvedAddress[]) {
  const tenant = `ssrf${++n}`;
  await webhooks.createEndpoint(db.sql, {
    tenant,
    kind: 'nats',
    url,
    destination: { subject: 'ssrf.{type}' },
    eventTypes: ['*'],
  });
  await db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.shipped', data: {} }));
  const asked: string[] = [];
  const w = new DeliveryWorker({
    webhooks,
    listen: false,
    timeoutMs: 1500,
    guard: {
      allowList,
      resolver: async (host) => {
        asked.push(host);
        return answers;
      },
    },
  });
  try {
    await w.drain();
  } finally {
    await w.stop();
  }
  return { asked, codes: await codes(tenant) };
}

test('a broker URL whose host is a blocked literal is refused at create, outside the allow-list', async () => {
  for (const url of [
    'nats://127.0.0.2:4222',
    'amqp://10.0.0.1/',
    'mqtt://[::1]:1883',
    'nats://169.254.169.254:4222',
  ]) {
    await assert.rejects(
      webhooks.createEndpoint(db.sql, {
        tenant: 'lit',
        kind: 'nats',
        url: url.replace(/^\w+:/, 'nats:'),
        destination: { subject: 'a.b' },
        eventTypes: ['*'],
      }),
      (e: unknown) => isInvalidInputError(e) && /url/.test((e as Error).message),
      url,
    );
  }
});

test('every answer is checked at each attempt: a private one is ssrf_blocked, nothing connects', async () => {
  const r = await attempt('nats://broker.test:4222', [{ address: '10.1.2.3', family: 4 }]);
  assert.deepEqual(r.asked, ['broker.test']);
  assert.deepEqual(r.codes, ['ssrf_blocked']);
  const mixed = await attempt('nats://broker.test:4222', [
    { address: '127.0.0.1', family: 4 },
    { address: '169.254.169.254', family: 4 },
  ]);
  assert.deepEqual(mixed.codes, ['ssrf_blocked'], 'one blocked answer among allowed ones blocks the host');
});

test('end to end: a name resolving to 127.0.0.2 (loopback, not allow-listed) never reaches the canary there', async () => {
  const seen: Socket[] = [];
  const canary = createServer((s) => {
    seen.push(s);
    s.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.2', r));
  const { port } = canary.address() as { port: number };
  try {
    const r = await attempt(`nats://broker.test:${port}`, [{ address: '127.0.0.2', family: 4 }]);
    assert.deepEqual(r.codes, ['ssrf_blocked']);
    assert.equal(seen.length, 0, 'no connection reached the canary');
  } finally {
    canary.close();
  }
});

test('the connection goes to the checked address, not to the name', {
  skip: natsUp ? false : 'no NATS on 127.0.0.1:4222 (.ci/run starts it)',
}, async () => {
  // `broker.test` resolves nowhere but through the injected resolver: delivery proves the client
  // connected to the address that was checked. A stream captures the subject for the PubAck.
  const { connect } = await import('nats');
  const nc = await connect({ servers: '127.0.0.1:4222' });
  const jsm = await nc.jetstreamManager();
  const stream = `SSRF${Date.now()}`;
  await jsm.streams.add({ name: stream, subjects: ['ssrf.>'] });
  try {
    const r = await attempt('nats://broker.test:4222', [{ address: '127.0.0.1', family: 4 }]);
    assert.deepEqual(r.codes, [null]);
    assert.equal((await jsm.streams.info(stream)).state.messages, 1);
  } finally {
    await jsm.streams.delete(stream);
    await nc.close();
  }
});
