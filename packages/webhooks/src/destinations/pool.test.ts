// The pool's bounds, with a driver that records what it is asked to do (the pool is the unit here;
// the real clients are tested against real brokers in test/destinations.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BrokerError } from './errors.js';
import { loadPeer, MissingBrokerClientError } from './peers.js';
import { BrokerPool } from './pool.js';
import type { BrokerDriver, BrokerTarget } from './types.js';

function recorder(fail?: (n: number) => BrokerError | undefined) {
  const log: string[] = [];
  let opened = 0;
  let sends = 0;
  const driver: BrokerDriver<{ n: number; open: boolean }> = {
    async connect() {
      opened++;
      log.push(`connect ${opened}`);
      return { n: opened, open: true };
    },
    async send(c) {
      const e = fail?.(++sends);
      log.push(`send on ${c.n}${e ? ` → ${e.code}` : ''}`);
      if (e) throw e;
    },
    usable: (c) => c.open,
    async close(c) {
      c.open = false;
      log.push(`close ${c.n}`);
    },
  };
  return { driver, log };
}
const target = { connectTimeoutMs: 1000, timeoutMs: 1000 } as BrokerTarget;
const message = { id: 'evt_1', type: 't', body: '{}', headers: {} };
const signal = () => AbortSignal.timeout(1000);

test('one connection per key, reused; a new one past its lifetime, the old closed', async () => {
  let now = 0;
  const pool = new BrokerPool({ maxLifetimeMs: 1000, now: () => now });
  const { driver, log } = recorder();
  await pool.send(driver, 'a', target, message, signal());
  await pool.send(driver, 'a', target, message, signal());
  await pool.send(driver, 'b', target, message, signal());
  now = 1500;
  await pool.send(driver, 'a', target, message, signal());
  await pool.close();
  assert.deepEqual(log.slice(0, 6), [
    'connect 1',
    'send on 1',
    'send on 1',
    'connect 2',
    'send on 2',
    'connect 3',
  ]);
  assert.ok(log.includes('close 1') && log.includes('close 2') && log.includes('close 3'), log.join(', '));
});

test('a timeout retires the connection: the next attempt connects anew', async () => {
  const pool = new BrokerPool();
  const { driver, log } = recorder((n) => (n === 1 ? new BrokerError('timeout', 'no confirm') : undefined));
  await assert.rejects(pool.send(driver, 'a', target, message, signal()), { code: 'timeout' });
  await pool.send(driver, 'a', target, message, signal());
  await pool.close();
  assert.deepEqual(log.slice(0, 5), [
    'connect 1',
    'send on 1 → timeout',
    'close 1',
    'connect 2',
    'send on 2',
  ]);
});

test('idle connections close; at most maxConnections stay open', async () => {
  let now = 0;
  const pool = new BrokerPool({ idleMs: 100, maxConnections: 2, now: () => now });
  const { driver, log } = recorder();
  for (const key of ['a', 'b', 'c']) await pool.send(driver, key, target, message, signal());
  assert.equal(pool.size, 2);
  assert.ok(log.includes('close 1'), 'the least recently used closed for the third');
  now = 500;
  pool.sweep();
  assert.equal(pool.size, 0);
  await pool.close();
});

test('a missing client is a MissingBrokerClientError naming the package', async () => {
  const missing = Object.assign(new Error("Cannot find package 'nats' imported from x"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
  await assert.rejects(
    loadPeer('nats', () => Promise.reject(missing)),
    (e: unknown) =>
      e instanceof MissingBrokerClientError &&
      e.code === 'missing_peer' &&
      /npm install nats/.test(e.message),
  );
  const broken = new Error('syntax error in the client');
  await assert.rejects(
    loadPeer('nats', () => Promise.reject(broken)),
    (e: unknown) => e === broken,
  );
});
