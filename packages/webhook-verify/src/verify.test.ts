import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { standardWebhooks, suretyVectors } from '../test/vectors/load.js';
import { createNodeBackend, createWebBackend, nodeCrypto } from './crypto.js';
import {
  createVerifier,
  type HeadersLike,
  isWebhookVerificationError,
  sign,
  type VerifiedWebhook,
  type VerifierOptions,
  verify,
  verifySync,
  WebhookVerificationError,
} from './index.js';

const backends = {
  node: createNodeBackend(nodeCrypto!),
  web: createWebBackend(globalThis.crypto.subtle),
};

type Run = (
  options: VerifierOptions,
  body: string | Uint8Array,
  headers: HeadersLike,
) => Promise<VerifiedWebhook>;
const runs: Record<string, Run> = {
  'verify (node:crypto)': (o, body, headers) => verify({ ...o, body, headers, backend: backends.node }),
  'verify (Web Crypto)': (o, body, headers) => verify({ ...o, body, headers, backend: backends.web }),
  verifySync: async (o, body, headers) => verifySync({ ...o, body, headers }),
  // The same bytes as a Buffer: the Surety scheme reads the id from bytes and from text alike.
  'verifySync, body as bytes': async (o, body, headers) =>
    verifySync({ ...o, body: typeof body === 'string' ? Buffer.from(body) : body, headers }),
};

async function outcome(promise: Promise<VerifiedWebhook>): Promise<string | VerifiedWebhook> {
  try {
    return await promise;
  } catch (error) {
    if (!isWebhookVerificationError(error)) throw error;
    return error.code;
  }
}

const code = (expected: string) => (e: unknown) => isWebhookVerificationError(e) && e.code === expected;

describe('verify: our vectors (surety.json)', () => {
  for (const vector of suretyVectors) {
    for (const format of [vector.format, 'auto'] as const) {
      for (const [how, run] of Object.entries(runs)) {
        test(`${vector.name} — format ${format}, ${how}`, async () => {
          const options: VerifierOptions = {
            secrets: vector.verifySecrets,
            format,
            now: () => vector.now * 1000,
            ...(vector.toleranceSeconds === undefined ? {} : { toleranceSeconds: vector.toleranceSeconds }),
          };
          const result = await outcome(run(options, vector.body, vector.headers));
          if (vector.expect === 'valid') {
            assert.deepEqual(result, {
              format: vector.format,
              id: vector.id,
              idSigned: vector.idSigned,
              timestamp: vector.timestamp,
              signature:
                vector.headers['webhook-signature']!.includes('v1a,') &&
                vector.verifySecrets.every((s) => typeof s === 'string' && /^wh(pk|sk)_/.test(s))
                  ? 'v1a'
                  : 'v1',
              secretIndex: vector.secretIndex,
            });
          } else {
            assert.equal(result, vector.expect);
          }
        });
      }
    }
  }
});

describe('verify: the Standard Webhooks published vectors', () => {
  const [hmac] = standardWebhooks.vectors;
  const headersOf = (signature: string) => ({
    'webhook-id': hmac!.id,
    'webhook-timestamp': String(hmac!.timestamp),
    'webhook-signature': signature,
  });
  const at = () => hmac!.timestamp * 1000;

  for (const vector of standardWebhooks.vectors) {
    for (const [how, run] of Object.entries(runs)) {
      test(`${vector.name} — ${how}`, async () => {
        const headers = {
          'webhook-id': vector.id,
          'webhook-timestamp': String(vector.timestamp),
          'webhook-signature': vector.signature,
        };
        const result = await run(
          { secrets: vector.secret, now: () => vector.timestamp * 1000 },
          vector.body,
          headers,
        );
        assert.equal(result.format, 'standard');
        assert.equal(result.id, vector.id);
        assert.equal(result.signature, vector.signature.split(',')[0]);
      });
    }
  }

  for (const failure of standardWebhooks.failures) {
    test(`fails: ${failure.name}`, async () => {
      for (const run of Object.values(runs)) {
        await assert.rejects(
          run({ secrets: hmac!.secret, now: at }, hmac!.body, headersOf(failure.signature)),
          code(failure.expect),
        );
      }
    });
  }

  test('multi-signature header with unknown versions and wrong signatures', async () => {
    const header = standardWebhooks.multiSignature
      .map((s) => (s === '<valid>' ? hmac!.signature : s))
      .join(' ');
    for (const run of Object.values(runs)) {
      const result = await run({ secrets: hmac!.secret, now: at }, hmac!.body, headersOf(header));
      assert.equal(result.signature, 'v1');
    }
  });

  test('the published Ed25519 signature verifies with the public key derived from whsk_', async () => {
    const ed = standardWebhooks.vectors.find((v) => v.signature.startsWith('v1a,'))!;
    const headers = {
      'webhook-id': ed.id,
      'webhook-timestamp': String(ed.timestamp),
      'webhook-signature': ed.signature,
    };
    for (const run of Object.values(runs)) {
      const now = () => ed.timestamp * 1000;
      assert.equal((await run({ secrets: ed.secret, now }, ed.body, headers)).signature, 'v1a');
      await assert.rejects(
        run({ secrets: ed.secret, now }, `${ed.body} `, headers),
        code('SURETY_WEBHOOK_NO_MATCHING_SIGNATURE'),
      );
    }
  });
});

describe('verify: raw bytes', () => {
  test('bytes that differ from JSON.stringify(JSON.parse(body)) verify only as received', async () => {
    // Spacing, key order, a \u escape and a float as the sender wrote them: all lost by a re-serialisation.
    const raw = '{ "b": 1.50, "a": "caf\\u00e9",\n  "n": [1, 2] }';
    const reserialised = JSON.stringify(JSON.parse(raw));
    assert.notEqual(reserialised, raw);
    const headers = await sign({ id: 'evt_1', body: raw, secrets: 'k' });
    assert.equal((await verify({ body: raw, headers, secrets: 'k' })).id, 'evt_1');
    assert.equal((await verify({ body: Buffer.from(raw), headers, secrets: 'k' })).id, 'evt_1');
    await assert.rejects(
      verify({ body: reserialised, headers, secrets: 'k' }),
      code('SURETY_WEBHOOK_NO_MATCHING_SIGNATURE'),
    );
  });

  test('a body that is not UTF-8 is verified as bytes', async () => {
    const body = Uint8Array.from([0xff, 0x00, 0xfe, 0x80]);
    for (const format of ['surety', 'standard'] as const) {
      const headers = await sign({
        id: 'e',
        body,
        secrets: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        format,
      });
      await verify({ body, headers, secrets: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
      await assert.rejects(
        verify({
          body: new TextDecoder().decode(body),
          headers,
          secrets: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        }),
        code('SURETY_WEBHOOK_NO_MATCHING_SIGNATURE'),
      );
    }
  });
});

describe('verify: rotation', () => {
  const now = () => 1_700_000_000_000;
  test('during the overlap both secrets verify; after it the old one alone fails', async () => {
    const body = '{"id":"evt_9"}';
    const overlap = await sign({ id: 'evt_9', body, secrets: ['new', 'old'], now });
    assert.equal((await verify({ body, headers: overlap, secrets: 'old', now })).secretIndex, 0);
    assert.equal((await verify({ body, headers: overlap, secrets: 'new', now })).secretIndex, 0);
    assert.equal((await verify({ body, headers: overlap, secrets: ['new', 'old'], now })).secretIndex, 0);
    const after = await sign({ id: 'evt_9', body, secrets: ['new'], now });
    assert.equal((await verify({ body, headers: after, secrets: ['old', 'new'], now })).secretIndex, 1);
    await assert.rejects(
      verify({ body, headers: after, secrets: 'old', now }),
      code('SURETY_WEBHOOK_NO_MATCHING_SIGNATURE'),
    );
  });
});

describe('verify: headers and options', () => {
  const body = '{"a":1}';
  const now = () => 1_700_000_000_000;

  test('Fetch Headers, mixed-case names and repeated headers', async () => {
    for (const format of ['surety', 'standard'] as const) {
      const headers = await sign({
        id: 'evt_1',
        body,
        secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        format,
        now,
      });
      const secrets = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      await verify({ body, headers: new Headers(headers), secrets, now });
      const mixed = {
        'Webhook-Id': headers['webhook-id'],
        'Webhook-Timestamp': headers['webhook-timestamp'],
        'Webhook-Signature': headers['webhook-signature'],
      };
      await verify({ body, headers: mixed, secrets, now });
      // A proxy that split the signature header in two; node would hand over an array.
      const sep = format === 'surety' ? ',' : ' ';
      const parts = headers['webhook-signature'].split(sep);
      const repeated = {
        ...headers,
        'webhook-signature': [parts.slice(0, 2).join(sep), parts.slice(2).join(sep)],
      };
      await verify({ body, headers: repeated, secrets: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', now });
      // node's own join of a repeated unknown header: "a, b"
      const joined = { ...headers, 'webhook-signature': repeated['webhook-signature'].join(', ') };
      await verify({ body, headers: joined, secrets: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', now });
    }
  });

  test('the default clock is Date.now and the default tolerance 300 s', async () => {
    const headers = await sign({ id: 'e', body, secrets: 'k' });
    await verify({ body, headers, secrets: 'k' });
    const old = await sign({ id: 'e', body, secrets: 'k', timestamp: Math.floor(Date.now() / 1000) - 400 });
    await assert.rejects(
      verify({ body, headers: old, secrets: 'k' }),
      code('SURETY_WEBHOOK_TIMESTAMP_TOO_OLD'),
    );
    await verify({ body, headers: old, secrets: 'k', toleranceSeconds: Number.POSITIVE_INFINITY });
  });

  test('format: a forced format does not read the other one', async () => {
    const headers = await sign({
      id: 'e',
      body,
      secrets: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      format: 'standard',
      now,
    });
    await assert.rejects(
      verify({ body, headers, secrets: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', format: 'surety', now }),
      code('SURETY_WEBHOOK_MALFORMED_HEADER'),
    );
  });

  test('missing headers altogether', async () => {
    await assert.rejects(verify({ body, headers: {}, secrets: 'k' }), code('SURETY_WEBHOOK_MISSING_HEADER'));
    await assert.rejects(
      verify({ body, headers: { 'webhook-signature': '  ' }, secrets: 'k' }),
      code('SURETY_WEBHOOK_MISSING_HEADER'),
    );
  });

  test('createVerifier refuses unusable secrets at creation, and a negative tolerance', () => {
    assert.throws(() => createVerifier({ secrets: [] }), code('SURETY_WEBHOOK_BAD_SECRET'));
    assert.throws(() => createVerifier({ secrets: ['ok', ''] }), code('SURETY_WEBHOOK_BAD_SECRET'));
    assert.throws(
      () => createVerifier({ secrets: 'not base64!', format: 'standard' }),
      code('SURETY_WEBHOOK_BAD_SECRET'),
    );
    assert.throws(() => createVerifier({ secrets: 'k', toleranceSeconds: -1 }), TypeError);
    // Usable for one format in auto mode: fine until a webhook of the other format arrives.
    createVerifier({ secrets: 'not base64!' });
  });

  test('errors are WebhookVerificationError with a code, a name and a message', async () => {
    const error = await verify({ body, headers: {}, secrets: 'k' }).catch((e: unknown) => e);
    assert.ok(error instanceof WebhookVerificationError);
    assert.equal(error.name, 'WebhookVerificationError');
    assert.equal(error.code, 'SURETY_WEBHOOK_MISSING_HEADER');
    assert.match(error.message, /webhook-signature/i);
    assert.equal(isWebhookVerificationError(new Error('x')), false);
  });
});
