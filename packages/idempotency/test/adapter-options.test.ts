// The adapters' options mean the same everywhere: `errorResponse` turns a thrown error into a stored
// 4xx (committed with the key and the business write, replayed to the retry), and `onOutcome` is told
// once per keyed request what happened. Written against Fastify's semantics, which had them first.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createPgSql, type Sql, type Tx } from '@surety/db';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { idempotency as expressIdempotency, txOf as expressTxOf } from '../src/express.js';
import { idempotency as fastifyIdempotency, txOf } from '../src/fastify.js';
import { idempotency as honoIdempotency, type IdempotencyVariables } from '../src/hono.js';
import { type AdapterOutcome, Idempotency, isIdempotencyError, type StoredResponse } from '../src/index.js';
import { chargesFixture } from './charges.js';

/** An engine whose store cannot be reached (nothing listens on port 1; a closed PGlite). */
let down: Idempotency;
let dead: Sql;
const fx = chargesFixture(async ({ db }) => {
  if (db.backend === 'pg') {
    dead = createPgSql({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectionTimeoutMillis: 500,
    });
  } else {
    const { createPgliteSql } = await import('@surety/db');
    dead = await createPgliteSql();
    await dead.close();
  }
  down = new Idempotency({ sql: dead, schema: db.schema });
});
const { insert, charges } = fx;
after(async () => {
  await dead.close().catch(() => {});
});

/** A final answer raised as an error: the card was declined (an outcome, so it is stored). */
class Declined extends Error {}
/** Any other error: rolled back, not stored. */
class Broken extends Error {}

const errorResponse = (error: unknown): StoredResponse | undefined =>
  error instanceof Declined
    ? { status: 402, headers: { 'content-type': 'application/json' }, body: '{"code":"card_declined"}' }
    : undefined;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
type Send = (path: string, key: string | undefined, body: unknown) => Promise<Answer>;
interface Setup {
  send: Send;
  close: () => Promise<void>;
  outcomes: AdapterOutcome[];
}

const headersOf = (h: Headers) => {
  const out: Record<string, string> = {};
  h.forEach((value, name) => {
    out[name] = value;
  });
  return out;
};

function scenario(name: string, setup: () => Promise<Setup>) {
  describe(name, () => {
    let s: Setup;
    before(async () => {
      s = await setup();
    });
    after(() => s.close());

    test('errorResponse: a mapped throw is committed with the key and replayed', async () => {
      const key = randomUUID();
      const note = `declined-${key}`;
      const first = await s.send('/declined', key, { note });
      assert.equal(first.status, 402);
      assert.equal(first.body, '{"code":"card_declined"}');
      assert.match(first.headers['content-type'] ?? '', /application\/json/);
      assert.equal(await charges(note), 1, 'the write before the throw committed with the answer');
      const again = await s.send('/declined', key, { note });
      assert.equal(again.status, 402);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await charges(note), 1);
    });

    test('errorResponse: an unmapped throw rolls back and the retry runs again', async () => {
      const key = randomUUID();
      const note = `broken-${key}`;
      const first = await s.send('/broken', key, { note });
      assert.equal(first.status, 500);
      assert.equal(await charges(note), 0);
      const again = await s.send('/broken', key, { note });
      assert.equal(again.headers['idempotent-replayed'], undefined);
    });

    test('onOutcome: once per keyed request, with what happened', async () => {
      const key = randomUUID();
      s.outcomes.length = 0;
      await s.send('/ok', key, { note: `ok-${key}` });
      await s.send('/ok', key, { note: `ok-${key}` });
      await s.send('/ok', key, { note: 'another body' });
      await s.send('/ok', undefined, { note: 'no key' });
      await s.send('/ok', 'bad key', { note: 'invalid key' });
      assert.deepEqual(s.outcomes, ['executed', 'replayed', 'mismatch']);
    });

    test('onOutcome: unavailable when the store cannot be reached, answered 503', async () => {
      s.outcomes.length = 0;
      const res = await s.send('/down', randomUUID(), { note: 'down' });
      assert.equal(res.status, 503);
      assert.equal(JSON.parse(res.body).code, 'idempotency_store_unavailable');
      assert.deepEqual(s.outcomes, ['unavailable']);
    });

    test('the transaction is there in an idempotent route and a coded error elsewhere', async () => {
      const res = await s.send('/no-layer', undefined, {});
      assert.equal(res.status, 200);
      assert.equal(res.body, 'SURETY_IDEMPOTENCY_NO_TRANSACTION');
    });
  });
}

scenario('Fastify plugin', async () => {
  const outcomes: AdapterOutcome[] = [];
  const app = Fastify();
  await app.register(fastifyIdempotency, {
    engine: fx.engine,
    tenant: () => 'acme',
    errorResponse,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  const opts = { config: { idempotency: true } };
  app.post<{ Body: { note: string } }>('/declined', opts, async (req) => {
    await insert(txOf(req), req.body.note);
    throw new Declined();
  });
  app.post<{ Body: { note: string } }>('/broken', opts, async (req) => {
    await insert(txOf(req), req.body.note);
    throw new Broken();
  });
  app.post<{ Body: { note: string } }>('/ok', opts, async (req) => {
    await insert(txOf(req), req.body.note);
    return { ok: true };
  });
  // The plugin decorates the request: one registration per app, so the dead store gets an app of its own.
  const downApp = Fastify();
  await downApp.register(fastifyIdempotency, {
    engine: down,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  downApp.post('/down', opts, async () => ({ ran: true }));
  await downApp.ready();
  app.post('/no-layer', async (req) => {
    try {
      txOf(req);
      return 'no error';
    } catch (error) {
      return isIdempotencyError(error) ? error.code : 'other error';
    }
  });
  await app.ready();
  return {
    outcomes,
    async send(path, key, body) {
      const res = await (path === '/down' ? downApp : app).inject({
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
    close: async () => {
      await app.close();
      await downApp.close();
    },
  };
});

scenario('Express middleware', async () => {
  const outcomes: AdapterOutcome[] = [];
  const app = express();
  const idem = expressIdempotency({
    engine: fx.engine,
    tenant: () => 'acme',
    errorResponse,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  app.post('/declined', express.json(), idem, async (req) => {
    await insert(expressTxOf(req), req.body.note);
    throw new Declined();
  });
  app.post('/broken', express.json(), idem, async (req) => {
    await insert(expressTxOf(req), req.body.note);
    throw new Broken();
  });
  app.post('/ok', express.json(), idem, async (req, res) => {
    await insert(expressTxOf(req), req.body.note);
    res.json({ ok: true });
  });
  app.post(
    '/down',
    express.json(),
    expressIdempotency({ engine: down, onOutcome: (outcome) => outcomes.push(outcome) }),
    (_req, res) => {
      res.json({ ran: true });
    },
  );
  app.post('/no-layer', (req, res) => {
    try {
      expressTxOf(req);
      res.send('no error');
    } catch (error) {
      res.send(isIdempotencyError(error) ? error.code : 'other error');
    }
  });
  // Express hands a handler's error to the error handlers after it, never to a middleware before it.
  app.use(idem.errors);
  app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ code: 'internal_error' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    outcomes,
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
});

scenario('Hono middleware', async () => {
  const outcomes: AdapterOutcome[] = [];
  const app = new Hono<{ Variables: IdempotencyVariables }>();
  const idem = honoIdempotency({
    engine: fx.engine,
    tenant: () => 'acme',
    errorResponse,
    onOutcome: (outcome) => outcomes.push(outcome),
  });
  app.post('/declined', idem, async (c) => {
    await insert(c.get('tx'), (await c.req.json<{ note: string }>()).note);
    throw new Declined();
  });
  app.post('/broken', idem, async (c) => {
    await insert(c.get('tx'), (await c.req.json<{ note: string }>()).note);
    throw new Broken();
  });
  app.post('/ok', idem, async (c) => {
    await insert(c.get('tx'), (await c.req.json<{ note: string }>()).note);
    return c.json({ ok: true });
  });
  // Hono types the transaction through the middleware's variables: a route without the middleware
  // has no `tx` variable, so there is nothing to guess. Kept for the shared table.
  app.post('/down', honoIdempotency({ engine: down, onOutcome: (outcome) => outcomes.push(outcome) }), (c) =>
    c.json({ ran: true }),
  );
  app.post('/no-layer', (c) => c.text('SURETY_IDEMPOTENCY_NO_TRANSACTION'));
  app.onError((_error, c) => c.json({ code: 'internal_error' }, 500));
  return {
    outcomes,
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
});

// NestJS: the same options, through SuretyIdempotencyModule.forRoot; decorators applied as functions
// (the test runner emits no decorator metadata), on each platform.
for (const platform of ['express', 'fastify'] as const) {
  scenario(`NestJS on ${platform}`, async () => {
    const outcomes: AdapterOutcome[] = [];
    const { Body, Controller, HttpCode, Module, Post, Req } = await import('@nestjs/common');
    const { NestFactory } = await import('@nestjs/core');
    const { ExpressAdapter } = await import('@nestjs/platform-express');
    const { FastifyAdapter } = await import('@nestjs/platform-fastify');
    const nest = await import('../src/nestjs.js');
    class Routes {
      async declined(body: { note: string }, tx: Tx) {
        await insert(tx, body.note);
        throw new Declined();
      }
      async broken(body: { note: string }, tx: Tx) {
        await insert(tx, body.note);
        throw new Broken();
      }
      async ok(body: { note: string }, tx: Tx) {
        await insert(tx, body.note);
        return { ok: true };
      }
      async down() {
        return { ran: true };
      }
      noLayer(request: object) {
        try {
          nest.txOf(request);
          return 'no error';
        } catch (error) {
          return isIdempotencyError(error) ? error.code : 'other error';
        }
      }
    }
    const proto = Routes.prototype;
    const route = (name: keyof Routes, path: string, idempotent: boolean) => {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
      if (idempotent) nest.Idempotent()(proto, name, descriptor);
      Post(path)(proto, name, descriptor);
    };
    for (const name of ['declined', 'broken', 'ok'] as const) {
      route(name, name, true);
      Body()(proto, name, 0);
      nest.Tx()(proto, name, 1);
    }
    route('down', 'down', true);
    route('noLayer', 'no-layer', false);
    Req()(proto, 'noLayer', 0);
    HttpCode(200)(proto, 'noLayer', Object.getOwnPropertyDescriptor(proto, 'noLayer')!);
    Controller()(Routes);
    const start = async (options: Parameters<typeof nest.SuretyIdempotencyModule.forRoot>[0]) => {
      class AppModule {}
      Module({ imports: [nest.SuretyIdempotencyModule.forRoot(options)], controllers: [Routes] })(AppModule);
      const adapter = platform === 'express' ? new ExpressAdapter() : new FastifyAdapter();
      const app = await NestFactory.create(AppModule, adapter, { logger: false });
      await app.listen(0, '127.0.0.1');
      return { app, base: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
    };
    const onOutcome = (outcome: AdapterOutcome) => outcomes.push(outcome);
    const up = await start({ engine: fx.engine, tenant: () => 'acme', errorResponse, onOutcome });
    const downApp = await start({ engine: down, onOutcome });
    return {
      outcomes,
      async send(path, key, body) {
        const res = await fetch((path === '/down' ? downApp : up).base + path, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(key === undefined ? {} : { 'idempotency-key': key }),
          },
          body: JSON.stringify(body),
        });
        return { status: res.status, headers: headersOf(res.headers), body: await res.text() };
      },
      close: async () => {
        await up.app.close();
        await downApp.app.close();
      },
    };
  });
}
