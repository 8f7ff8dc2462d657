// conditionalUpdate and conditionalDelete on a real Fastify app, over a versioned record whose writes
// match only at the version they expect (as the service's `… where version = $n` statements do). A
// second writer that commits between the read and the write (`interfere`) is the race the stale-write
// answer exists for: no route test can time it, so it is shown here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { versionETag } from '@surety/conditional';
import Fastify from 'fastify';
import { conditionalDelete, conditionalUpdate } from './conditional-update.js';
import { errorHandler, HttpProblem } from './problem.js';
import type { PreconditionNeed } from './route-config.js';

interface Row {
  version: number;
  value: string;
}

/** One record, written only at the version the writer expects; `interfere` runs before each write. */
function store() {
  const s = {
    row: undefined as Row | undefined,
    interfere: () => {},
    write(ifVersion: number, value: string): Row | undefined {
      s.interfere();
      if (s.row?.version !== ifVersion) return undefined;
      s.row = { version: ifVersion + 1, value };
      return s.row;
    },
    insert(value: string): Row | undefined {
      s.interfere();
      if (s.row) return undefined;
      s.row = { version: 1, value };
      return s.row;
    },
    remove(ifVersion: number | undefined): boolean {
      s.interfere();
      if (!s.row || (ifVersion !== undefined && s.row.version !== ifVersion)) return false;
      s.row = undefined;
      return true;
    },
  };
  return s;
}

async function appOver(s: ReturnType<typeof store>, precondition: PreconditionNeed) {
  const app = Fastify();
  app.setErrorHandler(errorHandler);
  app.put<{ Body: { value: string } }>('/thing', { config: { precondition } }, async (request, reply) => {
    const { value } = request.body;
    const out = await conditionalUpdate(request, reply, {
      current: s.row && { version: s.row.version },
      update: async (ifVersion) => {
        // The route's own refusal: checked only once the preconditions hold.
        if (value === 'refused') throw new HttpProblem(409, 'order_shipped', 'Refused', 'Refused.');
        return s.write(ifVersion, value);
      },
      ...(precondition === 'to-replace' ? { create: async () => s.insert(value) } : {}),
      versionOf: (row) => ({ version: row.version }),
    });
    if (out.kind === 'stopped') return out.payload;
    if (out.kind === 'created') reply.code(201);
    return out.row;
  });
  app.delete('/thing', { config: { precondition: 'optional' } }, async (request, reply) => {
    if (!s.row) return reply.code(404).send();
    const out = await conditionalDelete(request, reply, {
      current: { version: s.row.version },
      remove: async (ifVersion) => s.remove(ifVersion),
    });
    if (out.kind === 'stopped') return reply.send(out.payload);
    return reply.code(204).send();
  });
  await app.ready();
  return app;
}

const put = (value: string, headers: Record<string, string> = {}) =>
  ({ method: 'PUT', url: '/thing', payload: { value }, headers }) as const;
const codeOf = (body: string) => (JSON.parse(body) as { code: string }).code;

describe('conditionalUpdate', () => {
  test('create-or-replace: created (201), then 428 without If-Match, 412 when stale, 200 with the new ETag', async () => {
    const s = store();
    const app = await appOver(s, 'to-replace');
    const created = await app.inject(put('a'));
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers.etag, versionETag(1));
    assert.equal(codeOf((await app.inject(put('b'))).body), 'precondition_required');
    const stale = await app.inject(put('b', { 'if-match': versionETag(7) }));
    assert.equal(stale.statusCode, 412);
    const replaced = await app.inject(put('b', { 'if-match': versionETag(1) }));
    assert.equal(replaced.statusCode, 200);
    assert.equal(replaced.headers.etag, versionETag(2));
    assert.deepEqual(s.row, { version: 2, value: 'b' });
    assert.equal((await app.inject(put('c', { 'if-none-match': '*' }))).statusCode, 412);
  });

  test("the route's own checks run after the preconditions: a stale If-Match is a 412 before them", async () => {
    const s = store();
    s.row = { version: 1, value: 'a' };
    const app = await appOver(s, 'required');
    assert.equal((await app.inject(put('refused', { 'if-match': versionETag(5) }))).statusCode, 412);
    const refused = await app.inject(put('refused', { 'if-match': versionETag(1) }));
    assert.equal(codeOf(refused.body), 'order_shipped');
    assert.deepEqual(s.row, { version: 1, value: 'a' });
  });

  test('another writer between the read and the write: 412 when a precondition held, nothing written twice', async () => {
    const s = store();
    s.row = { version: 1, value: 'a' };
    const app = await appOver(s, 'required');
    s.interfere = () => {
      s.interfere = () => {};
      s.row = { version: 2, value: 'theirs' };
    };
    const res = await app.inject(put('mine', { 'if-match': versionETag(1) }));
    assert.equal(res.statusCode, 412);
    assert.equal(codeOf(res.body), 'precondition_failed');
    assert.equal(res.headers.etag, undefined, 'no validator for a version that was not written');
    assert.deepEqual(s.row, { version: 2, value: 'theirs' });
  });

  test('created by another request since the read: 412 with If-None-Match: *, 409 version_conflict without', async () => {
    for (const [headers, status, code] of [
      [{ 'if-none-match': '*' }, 412, 'precondition_failed'],
      [{}, 409, 'version_conflict'],
    ] as const) {
      const s = store();
      const app = await appOver(s, 'to-replace');
      s.interfere = () => {
        s.interfere = () => {};
        s.row = { version: 1, value: 'theirs' };
      };
      const res = await app.inject(put('mine', headers));
      assert.equal(res.statusCode, status);
      assert.equal(codeOf(res.body), code);
      assert.deepEqual(s.row, { version: 1, value: 'theirs' });
    }
  });
});

describe('conditionalDelete', () => {
  test('If-Match honoured (412 when stale), not required; a change in between is a 412', async () => {
    const s = store();
    s.row = { version: 3, value: 'a' };
    const app = await appOver(s, 'required');
    assert.equal(
      (await app.inject({ method: 'DELETE', url: '/thing', headers: { 'if-match': versionETag(2) } }))
        .statusCode,
      412,
    );
    s.interfere = () => {
      s.interfere = () => {};
      s.row = { version: 4, value: 'theirs' };
    };
    const raced = await app.inject({
      method: 'DELETE',
      url: '/thing',
      headers: { 'if-match': versionETag(3) },
    });
    assert.equal(raced.statusCode, 412);
    assert.deepEqual(s.row, { version: 4, value: 'theirs' });
    assert.equal((await app.inject({ method: 'DELETE', url: '/thing' })).statusCode, 204);
    assert.equal(s.row, undefined);
  });
});
