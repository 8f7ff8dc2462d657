// Two installed copies of the package (two versions in one node_modules tree) must recognise each
// other's errors: a second module instance of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AttemptTimeoutError,
  CircuitOpenError,
  DeadlineExceededError,
  FetchError,
  isAttemptTimeoutError,
  isCircuitOpenError,
  isDeadlineExceededError,
  isFetchError,
} from './errors.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module (its classes are not ours)', () => {
  assert.notEqual(other.AttemptTimeoutError, AttemptTimeoutError);
});

test('errors of the other copy are recognised by instanceof and the guards, by kind', () => {
  const timeout = new other.AttemptTimeoutError(250);
  assert.ok(timeout instanceof AttemptTimeoutError);
  assert.ok(timeout instanceof FetchError);
  assert.ok(!(timeout instanceof DeadlineExceededError) && !(timeout instanceof CircuitOpenError));
  assert.ok(isAttemptTimeoutError(timeout) && isFetchError(timeout));
  assert.ok(!isDeadlineExceededError(timeout) && !isCircuitOpenError(timeout));
  assert.equal(timeout.code, 'SURETY_ATTEMPT_TIMEOUT');
  assert.equal(timeout.timeoutMs, 250);

  const deadline = new other.DeadlineExceededError(2_000);
  assert.ok(deadline instanceof DeadlineExceededError && isDeadlineExceededError(deadline));
  assert.equal(deadline.code, 'SURETY_DEADLINE_EXCEEDED');

  const open = new other.CircuitOpenError('https://api.example.com', 1_000);
  assert.ok(open instanceof CircuitOpenError && isCircuitOpenError(open) && open instanceof FetchError);
  assert.equal(open.code, 'SURETY_CIRCUIT_OPEN');
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_CIRCUIT_OPEN' });
  assert.ok(!(fake instanceof CircuitOpenError) && !isCircuitOpenError(fake) && !isFetchError(fake));
  assert.ok(!(fake instanceof FetchError));
  assert.ok(!isFetchError(null) && !isFetchError('SURETY_CIRCUIT_OPEN'));
});
