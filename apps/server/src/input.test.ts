// The request check on its own: a route added later, in a child plugin, without a schema, is
// covered all the same (that is what makes it impossible for a new route to skip it), and what
// can be stored passes through byte for byte.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { findUnstorable } from '@surety/db';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { registerInputCheck, registerJsonParsers } from './input.js';
import { errorHandler } from './problem.js';

let app: FastifyInstance;
before(async () => {
  app = Fastify();
  registerInputCheck(app);
  registerJsonParsers(app);
  app.setErrorHandler(errorHandler);
  // Registered after the check, in an encapsulated child context, with no schema at all.
  await app.register(async (child) => {
    child.all('/echo/:id', async (request) => ({
      params: request.params,
      query: request.query,
      body: request.body ?? null,
    }));
  });
  await app.ready();
});
after(() => app.close());

const refusedWith = async (request: InjectOptions, code: string, where?: { in: string; path: string }) => {
  const res = await app.inject(request);
  assert.equal(res.statusCode, 400, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const problem = res.json() as { code: string; errors?: { in: string; path: string }[] };
  assert.equal(problem.code, code, res.body);
  if (where)
    assert.deepEqual(
      problem.errors?.[0] && { in: problem.errors[0].in, path: problem.errors[0].path },
      where,
    );
  // The answer itself carries nothing unstorable (it may be stored as an idempotent 4xx).
  assert.equal(findUnstorable(problem), undefined, res.body);
};

describe('the request check', () => {
  test('body keys and values at any depth, named by JSON pointer', async () => {
    const post = (body: unknown) => ({
      method: 'POST' as const,
      url: '/echo/1',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    await refusedWith(post({ a: { b: ['x', 'y\u0000'] } }), 'invalid_character', {
      in: 'body',
      path: '/a/b/1',
    });
    await refusedWith(post({ metadata: { 'k\ud800': 'v' } }), 'invalid_character', {
      in: 'body',
      path: '/metadata/k\\ud800',
    });
    await refusedWith(post(['\udc00']), 'invalid_character', { in: 'body', path: '/0' });
    await refusedWith(post('\u0000'), 'invalid_character', { in: 'body', path: '/' });
  });

  test('query values and names, path parameters', async () => {
    await refusedWith({ method: 'GET', url: '/echo/1?q=a%00' }, 'invalid_character', {
      in: 'querystring',
      path: '/q',
    });
    await refusedWith({ method: 'GET', url: '/echo/1?a%00=1' }, 'invalid_character');
    await refusedWith({ method: 'GET', url: '/echo/a%00b' }, 'invalid_character', {
      in: 'params',
      path: '/id',
    });
    for (const raw of ['%FF', '%ED%A0%80', '%C0%80', '%', '%zz']) {
      await refusedWith({ method: 'GET', url: `/echo/1?q=${raw}` }, 'invalid_url');
    }
  });

  test('bodies that are not UTF-8 are refused, not decoded with U+FFFD', async () => {
    for (const bytes of [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0x80]]) {
      await refusedWith(
        {
          method: 'POST',
          url: '/echo/1',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')]),
        },
        'invalid_json',
      );
    }
  });

  test('what can be stored passes through unchanged', async () => {
    const text = 'é 日本 😀 \u0001 \ufffe \\u0000 ~/';
    const res = await app.inject({
      method: 'POST',
      url: `/echo/${encodeURIComponent(text)}?${encodeURIComponent(text)}=${encodeURIComponent(text)}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ [text]: [text] }),
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { params: { id: text }, query: { [text]: text }, body: { [text]: [text] } });
  });
});
