// The payment provider (issue 32): the simulator honours Idempotency-Key as Stripe does, and the
// service survives whatever a provider answers: a payment ends `failed` with a code or `succeeded`,
// the client never sees a 5xx, nothing stays processing.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  createPspClient,
  ProviderUnavailableError,
  type PspClient,
  type PspClientOptions,
} from '../src/psp/client.js';
import { type RunningSimulator, startSimulator } from '../src/psp/serve.js';
import { TEST_CARDS } from '../src/psp/simulator.js';
import { auth, createTestApp, newKey, PAYMENT, postPayment, type TestApp } from './helpers.js';

let sim: RunningSimulator;
before(async () => {
  sim = await startSimulator({ slowMs: 300 });
});
after(() => sim.close());

const charge = (key: string | undefined, body: object) =>
  fetch(`${sim.url}/v1/charges`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
    body: JSON.stringify(body),
  });
const params = (paymentMethod: string, reference = 'pay_1') => ({
  amount: '100',
  currency: 'USD',
  paymentMethod,
  reference,
});

describe('the simulated provider', () => {
  test('same key and parameters: the stored answer, one charge; other parameters: 400; no key: 400', async () => {
    const first = await charge('k-same', params(TEST_CARDS.succeeds));
    assert.equal(first.status, 200);
    const body = await first.json();
    const again = await charge('k-same', params(TEST_CARDS.succeeds));
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), body);
    assert.equal(sim.simulator.chargesByKey.get('k-same'), 1);
    assert.equal((await charge('k-same', params(TEST_CARDS.succeeds, 'pay_2'))).status, 400);
    assert.equal((await charge(undefined, params(TEST_CARDS.succeeds))).status, 400);
  });

  test('test cards: a decline is 402 with its code and charges nothing; charge-then-500 is stored for the retry', async () => {
    const declined = await charge('k-decl', params(TEST_CARDS.insufficientFunds));
    assert.equal(declined.status, 402);
    assert.equal((await declined.json()).error.decline_code, 'insufficient_funds');
    assert.equal(sim.simulator.chargesByKey.get('k-decl'), undefined);
    const lost = await charge('k-500', params(TEST_CARDS.chargesThen500, 'pay_500'));
    assert.equal(lost.status, 500);
    assert.equal(
      sim.simulator.chargesByReference.get('pay_500')?.length,
      1,
      'charged although it answered 500',
    );
    const retried = await charge('k-500', params(TEST_CARDS.chargesThen500, 'pay_500'));
    assert.equal(retried.status, 200);
    assert.equal(sim.simulator.chargesByReference.get('pay_500')?.length, 1);
  });
});

/** A provider that answers whatever `answer` says, on loopback. */
async function hostile(answer: (res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const HOSTILE: Record<string, (res: ServerResponse) => void> = {
  html: (res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to nginx!</body></html>'),
  '10 MB': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"id":"${'x'.repeat(10 * 1024 * 1024)}","status":"succeeded"}`);
  },
  'NUL bytes': (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"ch_\u0000","status":"succeeded"}'),
  'invalid JSON': (res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "ch_1", "status": '),
  'a wrong shape': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2,3]'),
  'a 402 without a usable code': (res) =>
    res.writeHead(402, { 'content-type': 'application/json' }).end('{"error":{"decline_code":"<script>"}}'),
};

describe('the service against a hostile provider', () => {
  // One app for the suite (a PGlite start per test is slow): its provider client is switched per test.
  let current: PspClient | undefined;
  const psp: PspClient = {
    url: 'switchable',
    charge: (request, key) => current!.charge(request, key),
    close: async () => {},
  };
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ psp, pspGiveUpMs: 60_000 });
  });
  after(() => t.close());
  async function against(
    answer: (res: ServerResponse) => void,
    client: Partial<PspClientOptions>,
    run: () => Promise<void>,
  ) {
    const { url, server } = await hostile(answer);
    current = createPspClient({ url, deadlineMs: 2_000, ...client });
    try {
      await run();
    } finally {
      await current.close();
      server.closeAllConnections();
      server.close();
    }
  }

  for (const [name, answer] of Object.entries(HOSTILE)) {
    test(`${name}: the payment is failed with a code, answered 201, nothing stored from the answer`, () =>
      against(answer, {}, async () => {
        const res = await postPayment(t.app, PAYMENT, { 'idempotency-key': newKey() });
        assert.equal(res.statusCode, 201, res.body);
        const payment = res.json();
        assert.equal(payment.status, 'failed');
        assert.match(payment.failureCode, /^(provider_invalid_response|card_declined)$/);
        assert.equal(await t.count('payments', "status = 'processing'"), 0);
        const { rows } = await t.db.sql.query<{ charge_id: string | null }>(
          `select charge_id from "${t.db.schema}".payments where id = $1`,
          [payment.id],
        );
        assert.equal(rows[0]?.charge_id, null);
      }));
  }

  test('a hang: 202 processing (not stored, no 5xx), resumed by the retry, failed provider_unavailable after the give-up', () =>
    against(
      () => {},
      { deadlineMs: 300, attemptTimeoutMs: 150 },
      async () => {
        const key = newKey();
        const before = await t.count('payments');
        const first = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
        assert.equal(first.statusCode, 202, first.body);
        assert.equal(first.json().status, 'processing');
        assert.equal(first.headers['retry-after'], '1');
        const get = await t.app.inject({
          method: 'GET',
          url: first.headers.location as string,
          headers: auth('acme'),
        });
        assert.equal(get.json().status, 'processing');
        t.clock.now += 61_000;
        const last = await postPayment(t.app, PAYMENT, { 'idempotency-key': key });
        assert.equal(last.statusCode, 201, last.body);
        assert.deepEqual(
          [last.json().id, last.json().status, last.json().failureCode],
          [first.json().id, 'failed', 'provider_unavailable'],
        );
        assert.equal(await t.count('payments'), before + 1, 'the retry resumed the same payment');
      },
    ));

  test('the client classifies: 5xx and no answer are "unknown" (ProviderUnavailableError), never a failure', () =>
    against(
      (res) => res.writeHead(503).end('busy'),
      { deadlineMs: 500 },
      async () => {
        await assert.rejects(
          current!.charge({ amount: '1', currency: 'USD', paymentMethod: 'x', reference: 'r' }, 'k'),
          ProviderUnavailableError,
        );
      },
    ));
});

describe('the service with the simulated provider', () => {
  test('a decline is 201 failed with its code and payment.failed; a success publishes payment.succeeded; a replay is the same', async () => {
    const t = await createTestApp();
    try {
      const declined = await postPayment(
        t.app,
        { ...PAYMENT, paymentMethod: TEST_CARDS.declined },
        { 'idempotency-key': newKey() },
      );
      assert.equal(declined.statusCode, 201);
      assert.deepEqual([declined.json().status, declined.json().failureCode], ['failed', 'generic_decline']);
      const key = newKey();
      const ok = await postPayment(
        t.app,
        { ...PAYMENT, paymentMethod: TEST_CARDS.chargesThen500 },
        { 'idempotency-key': key },
      );
      assert.equal(ok.statusCode, 201, ok.body);
      assert.equal(ok.json().status, 'succeeded');
      const replay = await postPayment(
        t.app,
        { ...PAYMENT, paymentMethod: TEST_CARDS.chargesThen500 },
        { 'idempotency-key': key },
      );
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, ok.body);
      const events = await t.db.sql.query<{ type: string }>(
        `select type from "${t.db.schema}".webhook_events order by type`,
      );
      assert.deepEqual(
        events.rows.map((r) => r.type),
        ['payment.created', 'payment.created', 'payment.failed', 'payment.succeeded'],
      );
      assert.equal(t.app.payments.simulated, true);
    } finally {
      await t.close();
    }
  });
});
