// The Fastify, Express and Hono helpers against real HTTP servers on 127.0.0.1, port 0.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { verifyWebhook as expressVerify } from '../src/express.js';
import { webhooks as fastifyWebhooks } from '../src/fastify.js';
import { verifyWebhook as honoVerify, type WebhookVariables } from '../src/hono.js';
import { sign } from '../src/index.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const LIMIT = 4096;

/** What a handler saw, for the assertions. */
interface Seen {
  id: string | undefined;
  raw: string;
  body: unknown;
}

interface Receiver {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function fastifyReceiver(): Promise<Receiver> {
  const seen: Seen[] = [];
  const app = Fastify();
  await app.register(fastifyWebhooks, { secrets: [SECRET], bodyLimit: LIMIT });
  app.post('/webhooks', { config: { webhook: true } }, async (request) => {
    seen.push({ id: request.webhook?.id, raw: request.rawBody!.toString('utf8'), body: request.body });
    return { received: true };
  });
  // A route without the config is untouched.
  app.post('/plain', async (request) => ({ rawBody: request.rawBody ?? null, body: request.body }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => app.close() };
}

async function expressReceiver(): Promise<Receiver> {
  const seen: Seen[] = [];
  const app = express();
  app.post('/webhooks', expressVerify({ secrets: [SECRET], bodyLimit: LIMIT }), (req, res) => {
    seen.push({ id: req.webhook?.id, raw: req.rawBody!.toString('utf8'), body: req.body });
    res.json({ received: true });
  });
  app.post('/plain', express.json(), expressVerify({ secrets: [SECRET] }), (_req, res) => {
    res.json({ unreachable: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

async function honoReceiver(): Promise<Receiver> {
  const seen: Seen[] = [];
  const app = new Hono<{ Variables: WebhookVariables }>();
  app.post('/webhooks', honoVerify({ secrets: [SECRET], bodyLimit: LIMIT }), async (c) => {
    seen.push({
      id: c.get('webhook').id,
      raw: new TextDecoder().decode(c.get('rawBody')),
      body: await c.req.json(),
    });
    return c.json({ received: true });
  });
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
        resolve({ server: s, port: info.port }),
      );
    },
  );
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

const receivers = { Fastify: fastifyReceiver, Express: expressReceiver, Hono: honoReceiver };

// Spacing and key order a JSON.stringify of the parsed body would not reproduce.
const BODY = '{ "id": "evt_1",  "type": "order.shipped", "data": { "amount": 1.50 } }';

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get('content-type') ?? '', text };
}

for (const [name, make] of Object.entries(receivers)) {
  describe(`${name} receiver`, () => {
    let receiver: Receiver;
    before(async () => {
      receiver = await make();
    });
    after(() => receiver.close());

    test('a valid webhook reaches the handler with its raw bytes and parsed body', async () => {
      for (const format of ['surety', 'standard'] as const) {
        const headers = await sign({ id: 'evt_1', body: BODY, secrets: SECRET, format });
        const response = await post(`${receiver.url}/webhooks`, BODY, headers);
        assert.equal(response.status, 200, response.text);
        const seen = receiver.seen.at(-1)!;
        assert.equal(seen.id, 'evt_1');
        assert.equal(seen.raw, BODY);
        assert.deepEqual(seen.body, JSON.parse(BODY));
      }
    });

    const failures: [
      string,
      (h: Record<string, string>) => [string, Record<string, string>],
      number,
      string,
    ][] = [
      ['tampered body', (h) => [BODY.replace('1.50', '9.50'), h], 401, 'webhook_no_matching_signature'],
      [
        'missing signature',
        (h) => [BODY, { 'webhook-id': h['webhook-id']!, 'webhook-timestamp': h['webhook-timestamp']! }],
        400,
        'webhook_missing_header',
      ],
      [
        'malformed signature',
        (h) => [BODY, { ...h, 'webhook-signature': 'v1=abc' }],
        400,
        'webhook_malformed_header',
      ],
      [
        'stale timestamp',
        (h) => {
          const t = Number(h['webhook-timestamp']) - 3600;
          return [BODY, { ...h, 'webhook-timestamp': String(t), 'webhook-signature': `t=${t},v1=00` }];
        },
        401,
        'webhook_timestamp_too_old',
      ],
      ['body over the limit', (h) => [`"${'x'.repeat(LIMIT)}"`, h], 413, 'webhook_body_too_large'],
      // The Surety scheme signs the body, not webhook-id: a captured request resent under a new id
      // must not pass as a new event to a receiver that de-duplicates on the id.
      [
        'a captured webhook resent under another webhook-id',
        (h) => [BODY, { ...h, 'webhook-id': 'evt_2' }],
        401,
        'webhook_id_mismatch',
      ],
    ];
    for (const [what, tamper, status, code] of failures) {
      test(`${what}: ${status} problem+json with code ${code}, handler not run`, async () => {
        const before = receiver.seen.length;
        const headers = await sign({ id: 'evt_1', body: BODY, secrets: SECRET });
        const [body, sent] = tamper(headers);
        const response = await post(`${receiver.url}/webhooks`, body, sent);
        assert.equal(response.status, status, response.text);
        assert.match(response.type, /^application\/problem\+json/);
        const problem = JSON.parse(response.text);
        assert.equal(problem.code, code);
        assert.equal(problem.status, status);
        assert.equal(receiver.seen.length, before);
      });
    }

    test('the problem for a body re-serialised by a proxy is 401', async () => {
      const headers = await sign({ id: 'evt_1', body: BODY, secrets: SECRET });
      const response = await post(`${receiver.url}/webhooks`, JSON.stringify(JSON.parse(BODY)), headers);
      assert.equal(response.status, 401);
    });
  });
}

describe('framework specifics', () => {
  test('Fastify: routes without config: { webhook } are untouched', async () => {
    const receiver = await fastifyReceiver();
    try {
      const response = await post(`${receiver.url}/plain`, '{"a":1}', {});
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(response.text), { rawBody: null, body: { a: 1 } });
    } finally {
      await receiver.close();
    }
  });

  test('Express: mounted after express.json() it refuses to verify re-serialised JSON (500)', async () => {
    const receiver = await expressReceiver();
    try {
      const headers = await sign({ id: 'evt_1', body: BODY, secrets: SECRET });
      const response = await post(`${receiver.url}/plain`, BODY, headers);
      assert.equal(response.status, 500);
      assert.equal(JSON.parse(response.text).code, 'webhook_raw_body_unavailable');
    } finally {
      await receiver.close();
    }
  });

  test('Express: a verified body that is not JSON is 400 SURETY_WEBHOOK_INVALID_JSON', async () => {
    const receiver = await expressReceiver();
    try {
      const headers = await sign({ id: 'evt_4', body: '{not json', secrets: SECRET });
      const response = await post(`${receiver.url}/webhooks`, '{not json', headers);
      assert.equal(response.status, 400);
      assert.equal(JSON.parse(response.text).code, 'webhook_invalid_json');
    } finally {
      await receiver.close();
    }
  });
});
