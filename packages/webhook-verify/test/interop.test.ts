// Interoperability with the two libraries the benchmark compares against (root devDependencies):
// the `standardwebhooks` reference implementation, and Stripe, whose Stripe-Signature header has
// the same shape as the Surety scheme (t=…,v1=<hex HMAC-SHA256 of "t.body">, key = the secret's
// UTF-8 bytes). Skipped when those packages are not installed. No network: Stripe's client is
// constructed with a dummy key and only its local webhook helpers are called.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sign, verify } from '../src/index.js';

const standardwebhooks = await import('standardwebhooks').catch(() => undefined);
const stripeModule = await import('stripe').catch(() => undefined);
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BODY = '{"id":"evt_1","type":"order.shipped","data":{"note":"café"}}';

describe('interop with standardwebhooks', {
  skip: standardwebhooks ? false : 'standardwebhooks is not installed',
}, () => {
  test('what we sign, it verifies; what it signs, we verify', async () => {
    const { Webhook } = standardwebhooks!;
    const wh = new Webhook(SECRET);
    const ours = await sign({ id: 'msg_1', body: BODY, secrets: SECRET, format: 'standard' });
    assert.deepEqual(wh.verify(BODY, ours), JSON.parse(BODY));
    const timestamp = new Date();
    const theirs = {
      'webhook-id': 'msg_2',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': wh.sign('msg_2', timestamp, BODY),
    };
    const verified = await verify({ body: BODY, headers: theirs, secrets: SECRET });
    assert.equal(verified.format, 'standard');
    assert.equal(verified.id, 'msg_2');
  });
});

describe('interop with Stripe signatures', { skip: stripeModule ? false : 'stripe is not installed' }, () => {
  test('a Surety signature is accepted by stripe.webhooks.constructEvent, and the reverse', async () => {
    const stripe = new stripeModule!.default('sk_test_interop_not_a_key');
    const ours = await sign({ id: 'evt_1', body: BODY, secrets: SECRET });
    assert.equal(stripe.webhooks.constructEvent(BODY, ours['webhook-signature'], SECRET).id, 'evt_1');
    const header = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: SECRET });
    const verified = await verify({ body: BODY, headers: { 'webhook-signature': header }, secrets: SECRET });
    assert.equal(verified.format, 'surety');
  });
});
