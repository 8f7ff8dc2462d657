// PGlite is an optional peer: loaded only when the embedded database is asked for, and a clear,
// coded error naming the package when it is not installed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { isMissingPeerError } from './errors.js';
import { loadPglite } from './load-pglite.js';
import type { PgliteInstance } from './pglite.js';

// Compile-time: a real PGlite instance is accepted where Surety takes one (`createPgliteSql({ db })`).
const _assignable = (db: PGlite): PgliteInstance => db;
void _assignable;

describe('loadPglite', () => {
  test('loads the installed package', async () => {
    const PGliteClass = await loadPglite();
    assert.equal(typeof PGliteClass, 'function');
  });

  test('a package that is not installed: MissingPeerError naming it, with the install command', async () => {
    const missing = '@electric-sql/pglite-not-installed';
    const error = await loadPglite(() => import(missing), missing).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(isMissingPeerError(error));
    assert.equal(error.code, 'SURETY_DB_MISSING_PEER');
    assert.equal(error.packageName, missing);
    assert.match(error.message, /npm install @electric-sql\/pglite-not-installed/);
    assert.equal((error.cause as { code?: string }).code, 'ERR_MODULE_NOT_FOUND');
  });

  test('any other failure inside the package is passed on as it is', async () => {
    const broken = new Error('wasm failed to compile');
    await assert.rejects(
      loadPglite(() => Promise.reject(broken)),
      (e) => e === broken,
    );
  });
});
