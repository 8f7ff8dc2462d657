import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { versionETag } from './etag.js';
import { type IfMatchVersion, ifMatchVersion, staleWriteProblem } from './version.js';

describe('ifMatchVersion', () => {
  const cases: [string | string[] | undefined, IfMatchVersion['kind'], unknown?][] = [
    [undefined, 'absent'],
    ['*', 'any'],
    ['"v7"', 'version', 7],
    [' "v0" ', 'version', 0],
    ['"v7", W/"v8"', 'version', 7], // the weak tag can never match strongly
    ['"v7", "v7"', 'version', 7],
    ['"v7", "v9"', 'versions', [7, 9]],
    [['"v7"', '"v9"'], 'versions', [7, 9]],
    ['W/"v7"', 'unmatchable'],
    ['"abc"', 'unmatchable'],
    ['"v7-deadbeef"', 'unmatchable'], // salted tag read without its salt
    ['v7', 'malformed'],
    ['', 'malformed'],
    ['*, "v7"', 'malformed'],
  ];
  for (const [header, kind, value] of cases) {
    test(`${JSON.stringify(header)} → ${kind}`, () => {
      const result = ifMatchVersion(header);
      assert.equal(result.kind, kind);
      if (result.kind === 'version') assert.equal(result.version, value);
      if (result.kind === 'versions') assert.deepEqual(result.versions, value);
      if (result.kind === 'malformed') assert.match(result.detail, /^If-Match: /);
    });
  }

  test('salted tags read back with their salt', () => {
    const tag = versionETag(12, { salt: 'order-o_1-2024' });
    assert.deepEqual(ifMatchVersion(tag, { salt: 'order-o_1-2024' }), { kind: 'version', version: 12 });
    assert.deepEqual(ifMatchVersion(tag, { salt: 'order-o_1-2025' }), { kind: 'unmatchable' });
  });
});

describe('staleWriteProblem', () => {
  test('0 rows with If-Match → 412 precondition_failed; without → 409 version_conflict', () => {
    assert.deepEqual(
      [staleWriteProblem(true).status, staleWriteProblem(true).code],
      [412, 'precondition_failed'],
    );
    assert.deepEqual(
      [staleWriteProblem(false).status, staleWriteProblem(false).code],
      [409, 'version_conflict'],
    );
  });
});
