// Two installed copies of the package (two versions in one node_modules tree) must recognise each
// other's errors: a second module instance of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  classify,
  DatabaseUnavailableError,
  DbError,
  InvalidCursorError,
  isConnectionError,
  isDatabaseUnavailableError,
  isDbError,
  isInvalidCursorError,
  isMissingPeerError,
  MissingPeerError,
} from './errors.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module (its classes are not ours)', () => {
  assert.notEqual(other.DatabaseUnavailableError, DatabaseUnavailableError);
});

test('errors of the other copy are recognised by instanceof and the guards, by kind', () => {
  const down = new other.DatabaseUnavailableError('database unavailable: gone');
  assert.ok(down instanceof DatabaseUnavailableError);
  assert.ok(down instanceof DbError);
  assert.ok(!(down instanceof InvalidCursorError) && !(down instanceof MissingPeerError));
  assert.ok(isDatabaseUnavailableError(down) && isDbError(down));
  assert.ok(!isInvalidCursorError(down) && !isMissingPeerError(down));
  assert.equal(down.code, 'SURETY_DB_UNAVAILABLE');
  // The other copy's error is already classified: it passes through, not wrapped again.
  assert.ok(isConnectionError(down));
  assert.equal(classify(down), down);

  const cursor = new other.InvalidCursorError();
  assert.ok(cursor instanceof InvalidCursorError && isInvalidCursorError(cursor) && isDbError(cursor));
  assert.equal(cursor.code, 'SURETY_INVALID_CURSOR');

  const peer = new other.MissingPeerError('@electric-sql/pglite', 'the embedded database');
  assert.ok(peer instanceof MissingPeerError && isMissingPeerError(peer) && peer instanceof DbError);
  assert.equal(peer.code, 'SURETY_DB_MISSING_PEER');
  assert.equal(peer.packageName, '@electric-sql/pglite');
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_INVALID_CURSOR' });
  assert.ok(!(fake instanceof InvalidCursorError) && !isInvalidCursorError(fake) && !isDbError(fake));
  assert.ok(!isDbError(null) && !isDbError('SURETY_DB_UNAVAILABLE'));
  assert.ok(!(fake instanceof DbError));
});
