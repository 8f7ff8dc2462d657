// A phased operation through each adapter (issue 32): 400 without a key, a call that fails after
// charging leaves the key to be resumed, the retry finishes without repeating the committed phase
// and with the same derived key, a further retry replays, another body under the key is 422.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serve } from '@hono/node-server';
import { Body, Controller, type INestApplication, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { createTestDatabase, type TestDatabase } from '@surety/db/testing';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { phased as expressPhased } from '../src/express.js';
import { idempotency as fastifyIdempotency } from '../src/fastify.js';
import { phased as honoPhased } from '../src/hono.js';
import { deriveKey, Idempotency, phasedOperation } from '../src/index.js';
import { Idempotent, SuretyIdempotencyModule } from '../src/nestjs.js';

let db: TestDatabase;
let engine: Idempotency;
before(async () => {
  db = await createTestDatabase();
  engine = new Idempotency({ sql: db.sql, schema: db.schema });
  await engine.migrate();
  await db.sql.query(`create table "${db.schema}".pay_rows (k text not null, note text not null)`);
});
after(() => db.close());

const calls: string[] = [];
let failNext = false;
const pay = phasedOperation('adapters.pay', async (flow, input: { note: string }) => {
  await flow.local('created', async (tx) => {
    await tx.query(`insert into "${db.schema}".pay_rows values ($1, $2)`, [flow.key, input.note]);
    return null;
  });
  const charge = await flow.external('charge', async (k) => {
    calls.push(k);
    if (failNext) {
      failNext = false;
      throw new Error('provider answered 500 after charging');
    }
    return { id: `ch_${k.slice(0, 6)}` };
  });
  return {
    status: 201,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ note: input.note, charge: charge.id }),
  };
});
const rows = async (k: string) =>
  Number(
    (
      await db.sql.query<{ n: string }>(
        `select count(*)::text as n from "${db.schema}".pay_rows where k = $1`,
        [k],
      )
    ).rows[0]!.n,
  );

type PostFn = (
  key: string | undefined,
  body: unknown,
) => Promise<{ status: number; replayed: string | null; body: string }>;

function httpPost(base: string): PostFn {
  return async (key, body) => {
    const res = await fetch(`${base}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
    return { status: res.status, replayed: res.headers.get('idempotent-replayed'), body: await res.text() };
  };
}

const servers: Record<string, () => Promise<{ post: PostFn; close: () => Promise<void> }>> = {
  async fastify() {
    const app = Fastify();
    await app.register(fastifyIdempotency, { engine, tenant: () => 'acme' });
    app.post<{ Body: { note: string } }>(
      '/pay',
      { config: { idempotency: { phased: pay } } },
      async (req) => ({
        note: req.body.note,
      }),
    );
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    return { post: httpPost(base), close: () => app.close() };
  },
  async express() {
    const app = express();
    app.post(
      '/pay',
      express.json(),
      expressPhased({ engine, tenant: () => 'acme' }, pay, (req) => ({ note: req.body.note })),
    );
    app.use(((_error, _req, res, _next) => res.status(500).end()) as express.ErrorRequestHandler);
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { post: httpPost(base), close: () => new Promise((r) => server.close(() => r())) };
  },
  async hono() {
    const app = new Hono();
    app.post(
      '/pay',
      honoPhased({ engine, tenant: () => 'acme' }, pay, async (c) => ({ note: (await c.req.json()).note })),
    );
    app.onError((_error, c) => c.text('', 500));
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { post: httpPost(base), close: () => new Promise((r) => server.close(() => r())) };
  },
  async nestjs() {
    class PayController {
      create(body: { note: string }) {
        return { note: body.note };
      }
    }
    Controller()(PayController);
    const proto = PayController.prototype;
    const d = Object.getOwnPropertyDescriptor(proto, 'create')!;
    Idempotent({ phased: pay })(proto, 'create', d);
    Post('pay')(proto, 'create', d);
    Body()(proto, 'create', 0);
    class AppModule {}
    Module({
      imports: [SuretyIdempotencyModule.forRoot({ engine, tenant: () => 'acme' })],
      controllers: [PayController],
    })(AppModule);
    const app: INestApplication = await NestFactory.create(AppModule, new ExpressAdapter(), {
      logger: false,
    });
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    return { post: httpPost(base), close: () => app.close() };
  },
};

describe('phased routes through each adapter', () => {
  for (const [name, start] of Object.entries(servers)) {
    test(name, async () => {
      const { post, close } = await start();
      try {
        assert.equal((await post(undefined, { note: 'x' })).status, 400, 'a phased route requires a key');
        const k = `${name}-1`;
        calls.length = 0;
        failNext = true;
        const failed = await post(k, { note: name });
        assert.ok(failed.status >= 500, `the failed call is not a stored answer (${failed.status})`);
        const done = await post(k, { note: name });
        assert.equal(done.status, 201, done.body);
        assert.deepEqual(JSON.parse(done.body), {
          note: name,
          charge: `ch_${deriveKey(k, 'charge').slice(0, 6)}`,
        });
        assert.deepEqual(calls, [deriveKey(k, 'charge'), deriveKey(k, 'charge')]);
        assert.equal(await rows(k), 1, 'the committed local phase did not run again');
        const replay = await post(k, { note: name });
        assert.equal(replay.status, 201);
        assert.equal(replay.replayed, 'true');
        assert.equal(replay.body, done.body);
        assert.equal((await post(k, { note: 'other' })).status, 422);
        assert.equal(calls.length, 2);
      } finally {
        await close();
      }
    });
  }
});
