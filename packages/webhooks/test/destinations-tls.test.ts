// Broker destinations over TLS (mqtts:, tls: NATS) against private brokers on loopback whose
// certificates a private CA signed for a host name (`broker.test`, resolved to 127.0.0.1 by an
// injected resolver): the certificate is checked against the endpoint's host name, not the checked
// address the socket goes to; the operator's CA (`guard.tls.ca`) is trusted, nothing else is; a
// certificate for another name is refused. A refused handshake is an attempt recorded as tls_error,
// and nothing is published. (amqps: against a private RabbitMQ node: destinations-amqps.test.ts.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '../src/index.js';
import type { Resolver } from '../src/ssrf.js';
import { type Consumer, mqttConsumer, natsConsumer } from './broker-consumers.js';
import { installed, privateMosquittoTls, privateNatsTls } from './brokers.js';

let db: TestDatabase;
let webhooks: Webhooks;
let n = 0;
const allowList = parseAllowList('127.0.0.1/32');
// broker.test and other.test are loopback; nothing else resolves.
const resolver: Resolver = async (hostname) => {
  if (hostname === 'broker.test' || hostname === 'other.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
};

before(async () => {
  db = await createTestDatabase();
  webhooks = new Webhooks({ sql: db.sql, schema: db.schema, allowHttp: true, allowList });
  await webhooks.migrate();
});
after(() => db.close());

const outcomes = (tenant: string) =>
  db.sql
    .query<{ status: string; error_code: string | null }>(
      `select d.status, a.error_code from "${db.schema}".webhook_deliveries d
         join "${db.schema}".webhook_attempts a on a.delivery_id = d.id where d.tenant = $1 order by a.started_at`,
      [tenant],
    )
    .then((r) => r.rows);

/** One event to an endpoint at `url`, drained once by a worker trusting `ca` (or the system's CAs). */
async function deliverOnce(url: string, destination: object, ca: string | undefined) {
  const tenant = `tls${++n}`;
  await webhooks.createEndpoint(db.sql, {
    tenant,
    kind: url.startsWith('mqtts') ? 'mqtt' : 'nats',
    url,
    destination,
    eventTypes: ['*'],
  });
  await db.sql.transaction((tx) => webhooks.publish(tx, { tenant, type: 'order.shipped', data: { n } }));
  const worker = new DeliveryWorker({
    webhooks,
    listen: false,
    random: () => 0,
    timeoutMs: 3000,
    schedule: [300],
    guard: {
      allowList,
      allowHttp: true,
      resolver,
      connectTimeoutMs: 2000,
      ...(ca ? { tls: { ca: readFileSync(ca, 'utf8') } } : {}),
    },
  });
  try {
    await worker.drain();
  } finally {
    await worker.stop();
  }
  return outcomes(tenant);
}

const brokers: {
  kind: string;
  needs: string;
  start(
    name: string,
  ): Promise<{ port: number; ca: string; consumer(tag: string): Promise<Consumer>; close(): Promise<void> }>;
  url(host: string, port: number): string;
  destination(tag: string): object;
}[] = [
  {
    kind: 'mqtt',
    needs: 'mosquitto',
    async start(name) {
      const b = await privateMosquittoTls(name);
      return {
        port: b.port,
        ca: b.ca,
        consumer: (tag) => mqttConsumer(b.plainPort, `${tag}/#`),
        close: b.close,
      };
    },
    url: (host, port) => `mqtts://${host}:${port}`,
    destination: (tag) => ({ topic: `${tag}/{type}` }),
  },
  {
    kind: 'nats',
    needs: 'nats-server',
    async start(name) {
      const b = await privateNatsTls(name);
      return {
        port: b.port,
        ca: b.ca,
        consumer: (tag) => natsConsumer(b.port, `S${tag}`, tag, { ca: b.ca, servername: name }),
        close: b.close,
      };
    },
    url: (host, port) => `tls://${host}:${port}`,
    destination: (tag) => ({ subject: `${tag}.{type}` }),
  },
];

for (const broker of brokers) {
  const skip =
    installed(broker.needs) && installed('openssl')
      ? false
      : `${broker.needs} or openssl not installed (.ci/run installs them)`;
  describe(`${broker.kind} over TLS`, { skip }, () => {
    let b: Awaited<ReturnType<(typeof brokers)[number]['start']>>;
    before(async () => {
      b = await broker.start('broker.test');
    });
    after(() => b?.close());

    test("the operator's CA trusted, the certificate checked against the endpoint's host name: delivered", async () => {
      const tag = `ok${Date.now()}`;
      const consumer = await b.consumer(tag);
      try {
        const got = await deliverOnce(broker.url('broker.test', b.port), broker.destination(tag), b.ca);
        assert.deepEqual(got, [{ status: 'delivered', error_code: null }]);
        assert.equal((await consumer.waitFor(1)).length, 1);
      } finally {
        await consumer.close();
      }
    });

    test('a CA the process does not trust: tls_error, nothing published', async () => {
      const tag = `untrusted${Date.now()}`;
      const consumer = await b.consumer(tag);
      try {
        const got = await deliverOnce(broker.url('broker.test', b.port), broker.destination(tag), undefined);
        assert.deepEqual(got, [{ status: 'pending', error_code: 'tls_error' }]);
        await new Promise((r) => setTimeout(r, 200));
        assert.equal((await consumer.read()).length, 0);
      } finally {
        await consumer.close();
      }
    });

    test('a certificate for another name (other.test resolves to the same address): tls_error', async () => {
      const tag = `name${Date.now()}`;
      const got = await deliverOnce(broker.url('other.test', b.port), broker.destination(tag), b.ca);
      assert.deepEqual(got, [{ status: 'pending', error_code: 'tls_error' }]);
    });
  });
}
