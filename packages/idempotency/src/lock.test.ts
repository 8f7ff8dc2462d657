// The lock id is stored in every key row and is what the claim looks a key up by: it must never
// change, or a retry after an upgrade would miss the stored row and run its handler again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lockId } from './lock.js';

test('lock ids are the first 64 bits of SHA-256(tenant, NUL, key), as stored in existing rows', () => {
  assert.equal(lockId('t', 'k'), '-928242195543349021');
  assert.equal(lockId('tenant_1', '9f3c2a40-6b1e-4d7a-9a51-0d8c1f2e3b4a'), '5737489389417855366');
  assert.equal(lockId('é', 'ü€'), '-6741267282716376624');
});
