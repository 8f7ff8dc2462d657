// Issue 20: the Idempotency-Key draft defines the header as an RFC 8941 string
// (`Idempotency-Key: "8e03978e-…"`), and most clients send it bare. Both forms are one key, and a key
// stored in the quoted form before that change (the quotes were part of the key) keeps replaying for
// its whole TTL, whichever form the retry sends.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fingerprint } from '@surety/idempotency';
import { createTestApp, newKey, PAYMENT, postPayment, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ ttlMs: 60_000 });
});
after(() => t.close());

const payments = (customerId: string) => t.count('payments', 'customer_id = $1', [customerId]);

test('"k" and k are the same key: one payment, the second answer a replay', async () => {
  const body = { ...PAYMENT, customerId: `cus_${newKey()}` };
  const key = newKey();
  const quoted = await postPayment(t.app, body, { 'idempotency-key': `"${key}"` });
  assert.equal(quoted.statusCode, 201, quoted.body);
  const bare = await postPayment(t.app, body, { 'idempotency-key': key });
  assert.equal(bare.statusCode, 201, bare.body);
  assert.equal(bare.headers['idempotent-replayed'], 'true');
  assert.equal(bare.json().id, quoted.json().id);
  const again = await postPayment(t.app, body, { 'idempotency-key': `"${key}"` });
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(await payments(body.customerId), 1);
  // The same key with another body is a reuse, in either form.
  const other = await postPayment(t.app, { ...body, amount: '1' }, { 'idempotency-key': key });
  assert.equal(other.statusCode, 422);
});

test('a key stored quoted before the change replays for its whole TTL, in either form', async () => {
  const body = { ...PAYMENT, customerId: `cus_${newKey()}` };
  const key = newKey();
  // Stored as the service stored it before: the header as sent, quotes included, is the key (and
  // so its lock id), with the answer the first request got.
  const stored = JSON.stringify({ id: 'pay_stored_before', object: 'payment' });
  const outcome = await t.app.idempotency.execute(
    {
      tenant: 'acme',
      key: `"${key}"`,
      fingerprint: fingerprint({ method: 'POST', url: '/v1/payments', body }),
    },
    async () => ({ status: 201, headers: { 'content-type': 'application/json' }, body: stored }),
  );
  assert.equal(outcome.kind, 'executed');
  assert.equal(await t.count('idempotency_keys', 'key = $1', [`"${key}"`]), 1);

  for (const sent of [`"${key}"`, key]) {
    const res = await postPayment(t.app, body, { 'idempotency-key': sent });
    assert.equal(res.statusCode, 201, `${sent}: ${res.body}`);
    assert.equal(res.headers['idempotent-replayed'], 'true', sent);
    assert.equal(res.json().id, 'pay_stored_before', sent);
  }
  const reused = await postPayment(t.app, { ...body, amount: '7' }, { 'idempotency-key': key });
  assert.equal(reused.statusCode, 422, 'the stored key still guards against another body');
  assert.equal(await payments(body.customerId), 0, 'no payment was made again');

  // Past its TTL the key is a new operation, stored in the new form.
  t.clock.now += 60_001;
  const fresh = await postPayment(t.app, body, { 'idempotency-key': `"${key}"` });
  assert.equal(fresh.statusCode, 201);
  assert.equal(fresh.headers['idempotent-replayed'], undefined);
  assert.equal(await payments(body.customerId), 1);
  assert.equal(await t.count('idempotency_keys', 'key = $1', [key]), 1);
});
