// Two installed copies of the package (two versions in one node_modules tree) must recognise each
// other's errors: a second module instance of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  IdempotencyError,
  isIdempotencyError,
  isLeaseLostError,
  isNoTransactionError,
  isStoreUnavailableError,
  LeaseLostError,
  NoTransactionError,
  StoreUnavailableError,
} from './errors.js';
import { engineErrorProblem } from './http.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module (its classes are not ours)', () => {
  assert.notEqual(other.LeaseLostError, LeaseLostError);
});

test('errors of the other copy are recognised by instanceof and the guards, by kind', () => {
  const lost = new other.LeaseLostError();
  assert.ok(lost instanceof LeaseLostError);
  assert.ok(lost instanceof IdempotencyError);
  assert.ok(!(lost instanceof StoreUnavailableError));
  assert.ok(isLeaseLostError(lost) && isIdempotencyError(lost));
  assert.ok(!isStoreUnavailableError(lost) && !isNoTransactionError(lost));
  assert.equal(lost.code, 'SURETY_IDEMPOTENCY_LEASE_LOST');

  const down = new other.StoreUnavailableError({ cause: new Error('econnrefused') });
  assert.ok(down instanceof StoreUnavailableError && isStoreUnavailableError(down));
  assert.equal(engineErrorProblem(down)?.code, 'idempotency_store_unavailable');

  assert.ok(new other.NoTransactionError() instanceof NoTransactionError);
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_IDEMPOTENCY_LEASE_LOST' });
  assert.ok(!(fake instanceof LeaseLostError) && !isLeaseLostError(fake) && !isIdempotencyError(fake));
  assert.ok(!isIdempotencyError(null) && !isIdempotencyError('SURETY_IDEMPOTENCY_LEASE_LOST'));
  assert.equal(engineErrorProblem(fake), undefined);
});
