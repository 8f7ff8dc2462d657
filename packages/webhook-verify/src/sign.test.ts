import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { standardWebhooks, suretyVectors } from '../test/vectors/load.js';
import { createNodeBackend, createWebBackend, nodeCrypto } from './crypto.js';
import {
  createVerifier,
  generateSecret,
  generateSigningKey,
  isWebhookVerificationError,
  type SignInput,
  sign,
  signSync,
  verify,
} from './index.js';

const backends = {
  node: createNodeBackend(nodeCrypto!),
  web: createWebBackend(globalThis.crypto.subtle),
};

const signers: Record<string, (input: SignInput) => Promise<unknown>> = {
  'sign (node:crypto)': (input) => sign({ ...input, backend: backends.node }),
  'sign (Web Crypto)': (input) => sign({ ...input, backend: backends.web }),
  signSync: async (input) => signSync(input),
};

describe('sign: our vectors (surety.json)', () => {
  for (const vector of suretyVectors.filter((v) => v.signed)) {
    for (const [how, signer] of Object.entries(signers)) {
      test(`${vector.name} — ${how}`, async () => {
        const headers = await signer({
          id: vector.id,
          timestamp: vector.timestamp,
          body: vector.body,
          secrets: vector.signingSecrets,
          format: vector.format,
        });
        assert.deepEqual(headers, vector.headers);
      });
    }
  }
});

describe('sign: the Standard Webhooks published vectors', () => {
  for (const vector of standardWebhooks.vectors) {
    for (const [how, signer] of Object.entries(signers)) {
      test(`${vector.name} — ${how}`, async () => {
        const headers = await signer({
          id: vector.id,
          timestamp: vector.timestamp,
          body: vector.body,
          secrets: [vector.secret],
          format: 'standard',
        });
        assert.deepEqual(headers, {
          'webhook-id': vector.id,
          'webhook-timestamp': String(vector.timestamp),
          'webhook-signature': vector.signature,
        });
      });
    }
  }
});

describe('sign: inputs', () => {
  test('the default format is the Surety scheme, and the timestamp comes from the clock', async () => {
    const headers = await sign({ id: 'evt_1', body: '{}', secrets: 's3cret', now: () => 1_700_000_000_999 });
    assert.equal(headers['webhook-timestamp'], '1700000000');
    assert.match(headers['webhook-signature'], /^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  test('a Date timestamp, a Uint8Array body and a string body of the same bytes sign alike', async () => {
    const a = await sign({ id: 'evt_1', body: 'é', secrets: 's', timestamp: new Date(1_700_000_000_000) });
    const b = await sign({ id: 'evt_1', body: Buffer.from('é'), secrets: 's', timestamp: 1_700_000_000 });
    assert.deepEqual(a, b);
  });

  test('one signature per secret, in the order given', async () => {
    const one = await sign({ id: 'e', body: 'x', secrets: ['a'], timestamp: 1 });
    const two = await sign({ id: 'e', body: 'x', secrets: ['b', 'a'], timestamp: 1 });
    const [, mac] = one['webhook-signature'].split(',');
    assert.equal(two['webhook-signature'].split(',')[2], mac);
  });

  test('a bad id or timestamp is a TypeError', async () => {
    await assert.rejects(sign({ id: '', body: '', secrets: 's' }), TypeError);
    await assert.rejects(sign({ id: 'has space', body: '', secrets: 's' }), TypeError);
    await assert.rejects(sign({ id: 'e', body: '', secrets: 's', timestamp: 1.5 }), TypeError);
    await assert.rejects(sign({ id: 'e', body: '', secrets: 's', timestamp: -1 }), TypeError);
    assert.throws(() => signSync({ id: 'e\n', body: '', secrets: 's' }), TypeError);
  });

  test("Surety scheme: an id other than the body's top-level id is a TypeError (receivers would refuse it)", async () => {
    const body = '{"id":"ord_1","total":5}';
    await assert.rejects(
      sign({ id: 'msg_1', body, secrets: 's' }),
      /differs from the body's top-level id "ord_1"/,
    );
    assert.throws(() => signSync({ id: 'msg_1', body: Buffer.from(body), secrets: 's' }), TypeError);
    const later = '{"total":5, "id":"ord_1"}';
    assert.throws(() => signSync({ id: 'msg_1', body: later, secrets: 's' }), TypeError);
    // The body's own id, a body without one, and Standard Webhooks (which signs the id) are fine.
    await sign({ id: 'ord_1', body, secrets: 's' });
    await sign({ id: 'msg_1', body: '{"data":{"id":"ord_1"}}', secrets: 's' });
    await sign({ id: 'msg_1', body, secrets: 'whsec_c2VjcmV0', format: 'standard' });
  });

  test('a secret the format cannot use is SURETY_WEBHOOK_BAD_SECRET', async () => {
    const cases: [SignInput['secrets'], SignInput['format']][] = [
      ['', 'surety'],
      [[], 'surety'],
      ['whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=', 'surety'],
      ['whsec_!!!', 'standard'],
      ['whsk_AAAA', 'standard'],
      // A public key cannot sign.
      ['whpk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=', 'standard'],
    ];
    for (const [secrets, format] of cases) {
      for (const backend of Object.values(backends)) {
        await assert.rejects(
          sign({ id: 'e', body: '', secrets, format, backend }),
          (e) => isWebhookVerificationError(e) && e.code === 'SURETY_WEBHOOK_BAD_SECRET',
          `${JSON.stringify(secrets)} ${format} ${backend.name}`,
        );
      }
    }
  });
});

describe('generated secrets and keys', () => {
  test('generateSecret gives a whsec_ secret that signs and verifies in both formats', async () => {
    const secret = generateSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(secret, generateSecret());
    for (const format of ['surety', 'standard'] as const) {
      const headers = await sign({ id: 'e', body: 'b', secrets: secret, format });
      assert.equal((await verify({ body: 'b', headers, secrets: secret })).format, format);
    }
    assert.throws(() => generateSecret(8), RangeError);
  });

  test('generateSigningKey gives a pair: sign with whsk_, verify with whpk_', async () => {
    const { signingKey, publicKey } = await generateSigningKey();
    assert.match(signingKey, /^whsk_/);
    assert.match(publicKey, /^whpk_/);
    const headers = await sign({ id: 'e', body: 'b', secrets: signingKey, format: 'standard' });
    assert.match(headers['webhook-signature'], /^v1a,/);
    for (const backend of Object.values(backends)) {
      const verified = await createVerifier({ secrets: publicKey, backend }).verify('b', headers);
      assert.equal(verified.signature, 'v1a');
    }
  });
});
