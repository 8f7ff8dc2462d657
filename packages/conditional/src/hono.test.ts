import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Hono } from 'hono';
import { versionETag } from './etag.js';
import { checkPreconditions, setValidators } from './hono.js';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem.js';
import { staleWriteProblem } from './version.js';

interface Order {
  version: number;
  status: string;
  updatedAt: Date;
}

function makeApp() {
  const orders = new Map<string, Order>();
  const app = new Hono();
  app.get('/orders/:id', (c) => {
    const order = orders.get(c.req.param('id'));
    if (!order) return c.body(null, 404);
    const current = { exists: true, etag: versionETag(order.version), lastModified: order.updatedAt };
    const check = checkPreconditions(c, { current });
    if (!check.proceed) return check.response;
    setValidators(c, current);
    return c.json({ status: order.status });
  });
  app.put('/orders/:id', async (c) => {
    const order = orders.get(c.req.param('id'));
    const current = order ? { exists: true, etag: versionETag(order.version) } : { exists: false };
    const check = checkPreconditions(c, { current, require: true });
    if (!check.proceed) return check.response;
    // Reading the body yields: a concurrent request can write in between, as it can between a SELECT and
    // an UPDATE. The check alone is not enough; the write itself must be conditional.
    const body = await c.req.json<{ status: string }>();
    if (orders.get(c.req.param('id'))?.version !== order?.version) {
      const problem = staleWriteProblem(check.result);
      return c.body(problemBody(problem), problem.status as 409 | 412, {
        'content-type': PROBLEM_CONTENT_TYPE,
      });
    }
    const next = { version: (order?.version ?? 0) + 1, status: body.status, updatedAt: new Date() };
    orders.set(c.req.param('id'), next);
    setValidators(c, { etag: versionETag(next.version) });
    return c.json({ status: next.status }, order ? 200 : 201);
  });
  return app;
}

describe('hono helpers', () => {
  const app = makeApp();
  const put = (headers: Record<string, string>, status: string) =>
    app.request('/orders/o1', {
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
    const body = (await again.json()) as { code: string; instance: string };
    assert.equal(body.code, 'precondition_failed');
    assert.equal(body.instance, '/orders/o1');
  });

  test('GET If-None-Match → 304 with the ETag and no body', async () => {
    const cached = await app.request('/orders/o1', { headers: { 'if-none-match': '"v0", "v1"' } });
    assert.equal(cached.status, 304);
    assert.equal(cached.headers.get('etag'), '"v1"');
    assert.equal(await cached.text(), '');
    const fresh = await app.request('/orders/o1', { headers: { 'if-none-match': '"v0"' } });
    assert.equal(fresh.status, 200);
    assert.ok(fresh.headers.get('last-modified'));
  });

  test('428 without a precondition, 400 when malformed, 412 when stale', async () => {
    assert.equal((await put({}, 'x')).status, 428);
    const bad = await put({ 'if-match': '"v1", *' }, 'x');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'malformed_precondition');
    assert.equal((await put({ 'if-match': '"v0"' }, 'x')).status, 412);
  });

  test('lost update: one 200, one 412, then the re-read write succeeds', async () => {
    const [a, b] = await Promise.all([
      put({ 'if-match': '"v1"' }, 'paid'),
      put({ 'if-match': '"v1"' }, 'void'),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 412]);
    const etag = (await app.request('/orders/o1')).headers.get('etag')!;
    const retry = await put({ 'if-match': etag }, 'void');
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('etag'), '"v3"');
  });
});
