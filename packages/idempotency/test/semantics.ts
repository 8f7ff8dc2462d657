// The semantics table every idempotency adapter passes (adapters.test.ts, nestjs.test.ts): first
// run, byte-identical replay, 422 on reuse, 400 without a key, a returned 4xx stored, a throw or a 5xx
// rolled back. Each route writes a charge with the body's note; `charges(note)` counts them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}
export type Send = (path: string, key: string | undefined, body: unknown) => Promise<Answer>;

export function scenario(
  name: string,
  setup: () => Promise<{ send: Send; close: () => Promise<void> }>,
  charges: (note: string) => Promise<number>,
) {
  describe(name, () => {
    let send: Send;
    let close: () => Promise<void>;
    before(async () => {
      ({ send, close } = await setup());
    });
    after(() => close());

    test('runs once, replays byte-identical with Idempotent-Replayed, 422 on a different body', async () => {
      const key = randomUUID();
      const note = `ok-${key}`;
      const first = await send('/charges', key, { note });
      assert.equal(first.status, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.match(first.headers['content-type'] ?? '', /application\/json/);
      assert.ok(first.headers.location);
      const second = await send('/charges', key, { note });
      assert.equal(second.status, 201);
      assert.equal(second.body, first.body);
      assert.equal(second.headers.location, first.headers.location);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      const reused = await send('/charges', key, { note: 'other' });
      assert.equal(reused.status, 422);
      assert.equal(JSON.parse(reused.body).code, 'idempotency_key_reused');
      assert.match(reused.headers['content-type'] ?? '', /application\/problem\+json/);
      assert.equal(await charges(note), 1);
    });

    test('missing and invalid keys → 400 problem+json', async () => {
      const missing = await send('/charges', undefined, { note: 'x' });
      assert.equal(missing.status, 400);
      assert.equal(JSON.parse(missing.body).code, 'idempotency_key_missing');
      const invalid = await send('/charges', 'with space', { note: 'x' });
      assert.equal(invalid.status, 400);
      assert.equal(JSON.parse(invalid.body).code, 'idempotency_key_invalid');
      assert.equal(await charges('x'), 0);
    });

    test('a 4xx returned after the work started is committed and replayed', async () => {
      const key = randomUUID();
      const note = `decline-${key}`;
      const first = await send('/decline', key, { note });
      assert.equal(first.status, 402);
      const again = await send('/decline', key, { note });
      assert.equal(again.status, 402);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(await charges(note), 1);
    });

    test('a throw or a 5xx rolls back and stores nothing', async () => {
      for (const path of ['/throw', '/unavailable']) {
        const key = randomUUID();
        const note = `${path}-${key}`;
        const res = await send(path, key, { note });
        assert.ok(res.status >= 500, `${path} → ${res.status}`);
        assert.equal(res.headers['idempotent-replayed'], undefined);
        assert.equal(await charges(note), 0);
        const again = await send(path, key, { note });
        assert.equal(again.headers['idempotent-replayed'], undefined, 'the retry ran again');
      }
    });
  });
}

export const headersOf = (h: Headers) => {
  const out: Record<string, string> = {};
  h.forEach((value, name) => {
    out[name] = value;
  });
  return out;
};
