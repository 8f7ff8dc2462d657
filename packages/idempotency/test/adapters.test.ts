// The same scenario through each adapter: first run, byte-identical replay, 422 on reuse, 400 without
// a key, a returned 4xx stored, a throw or a 5xx rolled back.
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { idempotency as expressIdempotency } from '../src/express.js';
import { idempotency as fastifyIdempotency, txOf } from '../src/fastify.js';
import { idempotency as honoIdempotency, type IdempotencyVariables } from '../src/hono.js';
import { chargesFixture } from './charges.js';
import { headersOf, scenario } from './semantics.js';

const fx = chargesFixture();
const { insert, charges } = fx;

scenario(
  'Fastify plugin',
  async () => {
    const app = Fastify();
    await app.register(fastifyIdempotency, { engine: fx.engine, tenant: () => 'acme' });
    const opts = { config: { idempotency: true } };
    app.post<{ Body: { note: string } }>('/charges', opts, async (req, reply) => {
      const id = await insert(txOf(req), req.body.note);
      reply.code(201).header('location', `/charges/${id}`);
      return { id, note: req.body.note };
    });
    app.post<{ Body: { note: string } }>('/decline', opts, async (req, reply) => {
      await insert(txOf(req), req.body.note);
      reply.code(402);
      return { code: 'card_declined' };
    });
    app.post<{ Body: { note: string } }>('/throw', opts, async (req) => {
      await insert(txOf(req), req.body.note);
      throw new Error('boom');
    });
    app.post<{ Body: { note: string } }>('/unavailable', opts, async (req, reply) => {
      await insert(txOf(req), req.body.note);
      reply.code(503);
      return { code: 'downstream_unavailable' };
    });
    await app.ready();
    return {
      async send(path, key, body) {
        const res = await app.inject({
          method: 'POST',
          url: path,
          headers: {
            'content-type': 'application/json',
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          payload: JSON.stringify(body),
        });
        return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.body };
      },
      close: () => app.close(),
    };
  },
  charges,
);

scenario(
  'Express middleware',
  async () => {
    const app = express();
    const idem = expressIdempotency({ engine: fx.engine, tenant: () => 'acme' });
    app.post('/charges', express.json(), idem, async (req, res) => {
      const id = await insert(req.tx!, req.body.note);
      res.status(201).location(`/charges/${id}`).json({ id, note: req.body.note });
    });
    app.post('/decline', express.json(), idem, async (req, res) => {
      await insert(req.tx!, req.body.note);
      res.status(402).json({ code: 'card_declined' });
    });
    app.post('/throw', express.json(), idem, async (req) => {
      await insert(req.tx!, req.body.note);
      throw new Error('boom');
    });
    app.post('/unavailable', express.json(), idem, async (req, res) => {
      await insert(req.tx!, req.body.note);
      res.status(503).json({ code: 'downstream_unavailable' });
    });
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).json({ code: 'internal_error' });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      async send(path, key, body) {
        const res = await fetch(base + path, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          body: JSON.stringify(body),
        });
        return { status: res.status, headers: headersOf(res.headers), body: await res.text() };
      },
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  },
  charges,
);

scenario(
  'Hono middleware',
  async () => {
    const app = new Hono<{ Variables: IdempotencyVariables }>();
    const idem = honoIdempotency({ engine: fx.engine, tenant: () => 'acme' });
    app.post('/charges', idem, async (c) => {
      const { note } = await c.req.json<{ note: string }>();
      const id = await insert(c.get('tx'), note);
      c.header('location', `/charges/${id}`);
      return c.json({ id, note }, 201);
    });
    app.post('/decline', idem, async (c) => {
      await insert(c.get('tx'), (await c.req.json<{ note: string }>()).note);
      return c.json({ code: 'card_declined' }, 402);
    });
    app.post('/throw', idem, async (c) => {
      await insert(c.get('tx'), (await c.req.json<{ note: string }>()).note);
      throw new Error('boom');
    });
    app.post('/unavailable', idem, async (c) => {
      await insert(c.get('tx'), (await c.req.json<{ note: string }>()).note);
      return c.json({ code: 'downstream_unavailable' }, 503);
    });
    app.onError((_error, c) => c.json({ code: 'internal_error' }, 500));
    return {
      async send(path, key, body) {
        const res = await app.request(path, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          body: JSON.stringify(body),
        });
        return { status: res.status, headers: headersOf(res.headers), body: await res.text() };
      },
      close: async () => {},
    };
  },
  charges,
);
