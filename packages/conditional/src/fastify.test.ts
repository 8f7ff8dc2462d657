import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { versionETag } from './etag.js';
import { checkPreconditions, setValidators } from './fastify.js';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem.js';
import { ifMatchVersion, staleWriteProblem } from './version.js';

interface Order {
  version: number;
  status: string;
  updatedAt: Date;
}

describe('fastify helpers', () => {
  const orders = new Map<string, Order>();
  let app: FastifyInstance;

  before(async () => {
    app = Fastify();
    app.get<{ Params: { id: string } }>('/orders/:id', async (request, reply) => {
      const order = orders.get(request.params.id);
      if (!order) return reply.code(404).send();
      const current = { exists: true, etag: versionETag(order.version), lastModified: order.updatedAt };
      const check = checkPreconditions(request, reply, { current });
      if (!check.proceed) return check.payload;
      setValidators(reply, current);
      return { status: order.status };
    });
    app.put<{ Params: { id: string }; Body: { status: string } }>('/orders/:id', async (request, reply) => {
      const order = orders.get(request.params.id);
      const current = order
        ? { exists: true, etag: versionETag(order.version), lastModified: order.updatedAt }
        : { exists: false };
      const check = checkPreconditions(request, reply, { current, require: true });
      // Nothing is sent yet, so @surety/idempotency can capture and store what the handler returns.
      assert.equal(reply.sent, false);
      if (!check.proceed) return check.payload;
      await Promise.resolve(); // another request may write here, as it may between a SELECT and an UPDATE
      // The versioned write: `UPDATE … WHERE id = $1 AND version = $2` (or an insert that must not conflict).
      if (orders.get(request.params.id)?.version !== order?.version) {
        const problem = staleWriteProblem(check.result);
        return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problemBody(problem));
      }
      const next = { version: (order?.version ?? 0) + 1, status: request.body.status, updatedAt: new Date() };
      orders.set(request.params.id, next);
      setValidators(reply, { etag: versionETag(next.version) });
      reply.code(order ? 200 : 201);
      return { status: next.status };
    });
    // The one-statement pattern: the version comes from If-Match and the "update" is compare-and-set.
    app.patch<{ Params: { id: string }; Body: { status: string } }>('/orders/:id', async (request, reply) => {
      const expected = ifMatchVersion(request.headers['if-match']);
      if (expected.kind !== 'version') return reply.code(400).send({ kind: expected.kind });
      const order = orders.get(request.params.id);
      if (!order) return reply.code(404).send();
      // Simulates `UPDATE … WHERE id = $1 AND version = $2`: 0 rows.
      if (order.version !== expected.version) {
        const problem = staleWriteProblem(true);
        return reply.code(problem.status).send(problem);
      }
      order.version += 1;
      order.status = request.body.status;
      setValidators(reply, { etag: versionETag(order.version) });
      return { status: order.status };
    });
    await app.ready();
  });
  after(() => app.close());

  test('PUT with If-None-Match: * creates, then a second create is 412', async () => {
    const created = await app.inject({
      method: 'PUT',
      url: '/orders/o1',
      headers: { 'if-none-match': '*' },
      payload: { status: 'new' },
    });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers.etag, '"v1"');
    const again = await app.inject({
      method: 'PUT',
      url: '/orders/o1',
      headers: { 'if-none-match': '*' },
      payload: { status: 'new' },
    });
    assert.equal(again.statusCode, 412);
    assert.match(String(again.headers['content-type']), /^application\/problem\+json/);
    assert.equal(again.json().code, 'precondition_failed');
    assert.equal(again.json().instance, '/orders/o1');
  });

  test('create race: two If-None-Match: * at once → one 201, one 412', async () => {
    const create = () =>
      app.inject({
        method: 'PUT',
        url: '/orders/race',
        headers: { 'if-none-match': '*' },
        payload: { status: 'new' },
      });
    const [a, b] = await Promise.all([create(), create()]);
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [201, 412]);
    assert.equal((a.statusCode === 412 ? a : b).json().code, 'precondition_failed');
  });

  test('GET sends ETag and Last-Modified; If-None-Match → 304 with the ETag and no body', async () => {
    const got = await app.inject({ method: 'GET', url: '/orders/o1' });
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers.etag, '"v1"');
    assert.ok(got.headers['last-modified']);
    const cached = await app.inject({
      method: 'GET',
      url: '/orders/o1',
      headers: { 'if-none-match': 'W/"v1"' },
    });
    assert.equal(cached.statusCode, 304);
    assert.equal(cached.headers.etag, '"v1"');
    assert.equal(cached.body, '');
  });

  test('PUT without a precondition → 428; malformed If-Match → 400', async () => {
    const blind = await app.inject({ method: 'PUT', url: '/orders/o1', payload: { status: 'x' } });
    assert.equal(blind.statusCode, 428);
    assert.equal(blind.json().code, 'precondition_required');
    const bad = await app.inject({
      method: 'PUT',
      url: '/orders/o1',
      headers: { 'if-match': 'v1' },
      payload: { status: 'x' },
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'malformed_precondition');
    assert.match(bad.json().detail, /If-Match/);
  });

  test('lost update: two writers at v1 → one 200, one 412; the loser re-reads and succeeds', async () => {
    const write = (status: string, etag: string) =>
      app.inject({ method: 'PUT', url: '/orders/o1', headers: { 'if-match': etag }, payload: { status } });
    const [a, b] = await Promise.all([write('paid', '"v1"'), write('cancelled', '"v1"')]);
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [200, 412]);
    const reread = await app.inject({ method: 'GET', url: '/orders/o1' });
    const retry = await write('cancelled', String(reread.headers.etag));
    assert.equal(retry.statusCode, 200);
    assert.equal(retry.headers.etag, '"v3"');
  });

  test('versioned update from ifMatchVersion: 0 rows with If-Match → 412', async () => {
    const stale = await app.inject({
      method: 'PATCH',
      url: '/orders/o1',
      headers: { 'if-match': '"v2"' },
      payload: { status: 'shipped' },
    });
    assert.equal(stale.statusCode, 412);
    assert.equal(stale.json().code, 'precondition_failed');
    const fresh = await app.inject({
      method: 'PATCH',
      url: '/orders/o1',
      headers: { 'if-match': '"v3"' },
      payload: { status: 'shipped' },
    });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers.etag, '"v4"');
  });
});
