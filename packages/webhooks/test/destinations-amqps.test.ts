// amqps: against a private RabbitMQ node of this test's own (its node name, ports, Mnesia directory
// and config; a TLS listener whose certificate a private CA signed for `broker.test`, which an
// injected resolver sends to 127.0.0.1, and a plain listener for the test's consumer). As for mqtts:
// and tls: (destinations-tls.test.ts): the certificate is checked against the endpoint's host name,
// not the checked address; the operator's CA (`guard.tls.ca`) is trusted and nothing else; a
// certificate for another name is refused. A refused handshake is an attempt recorded as tls_error,
// and nothing is published. The node gets a bounded time to start (it takes seconds and ~150 MB);
// when it cannot, the tests are skipped with the reason.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import { DeliveryWorker, parseAllowList, Webhooks } from '../src/index.js';
import type { Resolver } from '../src/ssrf.js';
import { amqpConsumer } from './broker-consumers.js';
import { freePort, installed, listening, tlsFiles } from './brokers.js';

/** Debian's rabbitmq-server, run directly (its PATH wrapper switches to the rabbitmq user). */
const RABBITMQ = '/usr/lib/rabbitmq/bin/rabbitmq-server';
/** How long the node may take to listen; a loaded CI machine took 18 s. */
const START_MS = 90_000;

interface Node {
  tlsPort: number;
  plainPort: number;
  ca: string;
  close(): Promise<void>;
}

/** A RabbitMQ node of its own on free loopback ports, or the reason it could not start. */
async function privateRabbitTls(name: string): Promise<Node | string> {
  if (!existsSync(RABBITMQ) || !installed('openssl')) return `${RABBITMQ} or openssl not installed`;
  const dir = mkdtempSync(join(tmpdir(), 'surety-rabbitmq-'));
  const [tlsPort, plainPort, distPort] = [await freePort(), await freePort(), await freePort()];
  const files = tlsFiles(dir, name);
  writeFileSync(
    join(dir, 'rabbitmq.conf'),
    [
      `listeners.tcp.1 = 127.0.0.1:${plainPort}`,
      `listeners.ssl.1 = 127.0.0.1:${tlsPort}`,
      `ssl_options.cacertfile = ${files.ca}`,
      `ssl_options.certfile = ${files.cert}`,
      `ssl_options.keyfile = ${files.key}`,
      'ssl_options.verify = verify_none',
      'ssl_options.fail_if_no_peer_cert = false',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  writeFileSync(join(dir, 'env.conf'), '');
  // Everything the node writes is under `dir`; the system's rabbitmq-env.conf (its node name) is
  // not read; the Erlang cookie is made in HOME.
  const child: ChildProcess = spawn(RABBITMQ, [], {
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      HOME: dir,
      RABBITMQ_CONF_ENV_FILE: join(dir, 'env.conf'),
      RABBITMQ_NODENAME: `surety_tls_${process.pid}@localhost`,
      RABBITMQ_NODE_PORT: String(plainPort),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_LOGS: join(dir, 'rabbit.log'),
      RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_PLUGINS_EXPAND_DIR: join(dir, 'plugins-expand'),
      RABBITMQ_PID_FILE: join(dir, 'pid'),
      ERL_EPMD_ADDRESS: '127.0.0.1',
    },
  });
  let exited = child.exitCode !== null;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const close = async () => {
    // The node's process group (the script and its beam): SIGTERM stops a node cleanly.
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
      await Promise.race([gone, new Promise((r) => setTimeout(r, 15_000))]);
      if (!exited) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {}
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + START_MS;
  while (Date.now() < until && !exited) {
    if ((await listening(tlsPort, 300)) && (await listening(plainPort, 300))) {
      return { tlsPort, plainPort, ca: files.ca, close };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const log = join(dir, 'rabbit.log');
  const why = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-3).join(' ') : '';
  await close();
  return `a private RabbitMQ node did not listen within ${START_MS / 1000} s${exited ? ' (it exited)' : ''}: ${why}`;
}

const node = await privateRabbitTls('broker.test');
const skip = typeof node === 'string' ? node : false;

let db: TestDatabase;
let webhooks: Webhooks;
let n = 0;
const allowList = parseAllowList('127.0.0.1/32');
const resolver: Resolver = async (hostname) => {
  if (hostname === 'broker.test' || hostname === 'other.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
};

describe('amqp over TLS (a private RabbitMQ node)', { skip }, () => {
  const b = node as Node;
  before(async () => {
    db = await createTestDatabase();
    webhooks = new Webhooks({ sql: db.sql, schema: db.schema, allowHttp: true, allowList });
    await webhooks.migrate();
  });
  after(async () => {
    await db?.close();
    await b.close();
  });

  /** One event to an amqps endpoint on `host`, drained once by a worker trusting `ca` (or not). */
  async function deliverOnce(host: string, exchange: string, ca: string | undefined) {
    const tenant = `amqps${++n}`;
    await webhooks.createEndpoint(db.sql, {
      tenant,
      kind: 'amqp',
      url: `amqps://guest:guest@${host}:${b.tlsPort}/`,
      destination: { exchange, routingKey: '{type}' },
      eventTypes: ['*'],
    });
    const event = await db.sql.transaction((tx) =>
      webhooks.publish(tx, { tenant, type: 'order.shipped', data: { n } }),
    );
    const worker = new DeliveryWorker({
      webhooks,
      listen: false,
      random: () => 0,
      timeoutMs: 5000,
      schedule: [300],
      guard: {
        allowList,
        allowHttp: true,
        resolver,
        connectTimeoutMs: 3000,
        ...(ca ? { tls: { ca: readFileSync(ca, 'utf8') } } : {}),
      },
    });
    try {
      await worker.drain();
    } finally {
      await worker.stop();
    }
    const { rows } = await db.sql.query<{ status: string; error_code: string | null }>(
      `select d.status, a.error_code from "${db.schema}".webhook_deliveries d
         join "${db.schema}".webhook_attempts a on a.delivery_id = d.id where d.tenant = $1 order by a.started_at`,
      [tenant],
    );
    return { id: event.id, outcomes: rows };
  }

  test("the operator's CA trusted, the certificate checked against the endpoint's host name: delivered once, with its message_id", async () => {
    const tag = `ok${Date.now()}`;
    const consumer = await amqpConsumer(b.plainPort, tag);
    try {
      const got = await deliverOnce('broker.test', tag, b.ca);
      assert.deepEqual(got.outcomes, [{ status: 'delivered', error_code: null }]);
      const [m] = await consumer.waitFor(1);
      assert.equal(m?.dedupeId, got.id);
      assert.equal(JSON.parse(m?.body ?? '{}').id, got.id);
    } finally {
      await consumer.close();
    }
  });

  test('a CA the process does not trust: tls_error, nothing published', async () => {
    const tag = `untrusted${Date.now()}`;
    const consumer = await amqpConsumer(b.plainPort, tag);
    try {
      const got = await deliverOnce('broker.test', tag, undefined);
      assert.deepEqual(got.outcomes, [{ status: 'pending', error_code: 'tls_error' }]);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await consumer.read()).length, 0);
    } finally {
      await consumer.close();
    }
  });

  test('a certificate for another name (other.test resolves to the same address): tls_error', async () => {
    const tag = `name${Date.now()}`;
    const consumer = await amqpConsumer(b.plainPort, tag);
    try {
      const got = await deliverOnce('other.test', tag, b.ca);
      assert.deepEqual(got.outcomes, [{ status: 'pending', error_code: 'tls_error' }]);
      assert.equal((await consumer.read()).length, 0);
    } finally {
      await consumer.close();
    }
  });
});
