// Two installed copies of the package (two versions in one node_modules tree) must recognise each
// other's errors: a second module instance of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventError, isEventError } from './errors.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module (its class is not ours)', () => {
  assert.notEqual(other.EventError, EventError);
});

test('errors of the other copy are recognised by instanceof and the guard', () => {
  const issues = [{ path: '/items/0/quantity', message: 'must be >= 1' }];
  const invalid = new other.EventError('SURETY_EVENT_INVALID_PAYLOAD', 'invalid payload', issues);
  assert.ok(invalid instanceof EventError);
  assert.ok(isEventError(invalid));
  assert.equal(invalid.code, 'SURETY_EVENT_INVALID_PAYLOAD');
  assert.deepEqual(invalid.errors, issues);
  assert.deepEqual(new other.EventError('SURETY_EVENT_UNKNOWN_TYPE', 'unknown').errors, []);
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_EVENT_UNKNOWN_TYPE', errors: [] });
  assert.ok(!(fake instanceof EventError) && !isEventError(fake));
  assert.ok(!isEventError(null) && !isEventError('SURETY_EVENT_UNKNOWN_TYPE'));
});
