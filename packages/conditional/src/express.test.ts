import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import express from 'express';
import { versionETag } from './etag.js';
import { checkPreconditions, setValidators } from './express.js';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem.js';
import { staleWriteProblem } from './version.js';

interface Order {
  version: number;
  status: string;
  updatedAt: Date;
}

describe('express helpers', () => {
  const orders = new Map<string, Order>();
  let server: Server;
  let base: string;

  before(async () => {
    const app = express();
    app.use(express.json());
    app.get('/orders/:id', (req, res) => {
      const order = orders.get(req.params.id);
      if (!order) return void res.status(404).end();
      const current = { exists: true, etag: versionETag(order.version), lastModified: order.updatedAt };
      if (!checkPreconditions(req, res, { current }).proceed) return;
      setValidators(res, current).json({ status: order.status });
    });
    app.put('/orders/:id', async (req, res) => {
      const order = orders.get(req.params.id);
      const current = order ? { exists: true, etag: versionETag(order.version) } : { exists: false };
      const check = checkPreconditions(req, res, { current, require: true });
      if (!check.proceed) return;
      await Promise.resolve(); // another request may write here, as it may between a SELECT and an UPDATE
      if (orders.get(req.params.id)?.version !== order?.version) {
        const problem = staleWriteProblem(check.result);
        return void res.status(problem.status).type(PROBLEM_CONTENT_TYPE).end(problemBody(problem));
      }
      const next = { version: (order?.version ?? 0) + 1, status: req.body.status, updatedAt: new Date() };
      orders.set(req.params.id, next);
      setValidators(res, { etag: versionETag(next.version) })
        .status(order ? 200 : 201)
        .json({ status: next.status });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const put = (headers: Record<string, string>, status: string) =>
    fetch(`${base}/orders/o1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ status }),
    });

  test('create with If-None-Match: *, then 412 on a second create', async () => {
    const created = await put({ 'if-none-match': '*' }, 'new');
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('etag'), '"v1"');
    const again = await put({ 'if-none-match': '*' }, 'new');
    assert.equal(again.status, 412);
    assert.equal(again.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await again.json()) as { code: string }).code, 'precondition_failed');
  });

  test('GET If-None-Match → 304 with the ETag; If-Modified-Since → 304', async () => {
    const got = await fetch(`${base}/orders/o1`);
    assert.equal(got.status, 200);
    const lastModified = got.headers.get('last-modified')!;
    await got.body?.cancel();
    const cached = await fetch(`${base}/orders/o1`, { headers: { 'if-none-match': '"v1"' } });
    assert.equal(cached.status, 304);
    assert.equal(cached.headers.get('etag'), '"v1"');
    const byDate = await fetch(`${base}/orders/o1`, { headers: { 'if-modified-since': lastModified } });
    assert.equal(byDate.status, 304);
  });

  test('428 without a precondition, 400 when malformed', async () => {
    const blind = await put({}, 'x');
    assert.equal(blind.status, 428);
    assert.equal(((await blind.json()) as { code: string }).code, 'precondition_required');
    const bad = await put({ 'if-unmodified-since': 'tomorrow' }, 'x');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'malformed_precondition');
  });

  test('lost update: one 200, one 412, then the re-read write succeeds', async () => {
    const [a, b] = await Promise.all([
      put({ 'if-match': '"v1"' }, 'paid'),
      put({ 'if-match': '"v1"' }, 'void'),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 412]);
    await Promise.all([a.body?.cancel(), b.body?.cancel()]);
    const etag = (await fetch(`${base}/orders/o1`, { method: 'HEAD' })).headers.get('etag')!;
    const retry = await put({ 'if-match': etag }, 'void');
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('etag'), '"v3"');
  });
});
