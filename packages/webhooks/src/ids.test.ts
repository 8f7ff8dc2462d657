import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from './ids.js';

describe('newId', () => {
  it('is a prefix and 22 base62 characters', () => {
    assert.match(newId('evt'), /^evt_[0-9A-Za-z]{22}$/);
  });

  it('sorts by creation time, in byte order, whatever the random part', () => {
    const times = [0, 1, 61, 62, 3843, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 62 ** 8 - 1];
    const ids = times.map((t) => newId('evt', t));
    const sorted = [...ids].sort((a, b) => (Buffer.from(a) < Buffer.from(b) ? -1 : 1));
    assert.deepEqual(sorted, ids);
    // The time is the first 8 characters, most significant first.
    assert.equal(newId('x', 0).slice(2, 10), '00000000');
    assert.equal(newId('x', 62).slice(2, 10), '00000010');
  });

  it('ids of the same millisecond differ (14 random characters, each of the 62 equally likely)', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('evt', 1_700_000_000_000));
    assert.equal(new Set(ids).size, ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id.slice(12)) counts.set(c, (counts.get(c) ?? 0) + 1);
    assert.equal(counts.size, 62);
    const expected = (ids.length * 14) / 62;
    for (const [c, n] of counts)
      assert.ok(Math.abs(n - expected) < expected * 0.15, `${c}: ${n} vs ${expected}`);
  });
});
