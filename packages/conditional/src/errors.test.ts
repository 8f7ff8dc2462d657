// Two installed copies of the package (two versions in one node_modules tree) must recognise each
// other's errors: a second module instance of errors.ts stands for the other copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConditionalError, isConditionalError } from './errors.js';
import { formatETag, versionETag } from './etag.js';

const other = (await import(`./errors.js?copy=${Date.now()}`)) as typeof import('./errors.js');

test('the second copy is a different module (its class is not ours)', () => {
  assert.notEqual(other.ConditionalError, ConditionalError);
});

test('errors of the other copy are recognised by instanceof and the guard', () => {
  const bad = new other.ConditionalError('SURETY_CONDITIONAL_INVALID_ETAG', 'bad tag');
  assert.ok(bad instanceof ConditionalError);
  assert.ok(isConditionalError(bad));
  assert.equal(bad.code, 'SURETY_CONDITIONAL_INVALID_ETAG');
});

test('what the package throws carries its code', () => {
  assert.throws(
    () => formatETag({ weak: false, opaque: 'a b' }),
    (e: unknown) =>
      e instanceof ConditionalError && isConditionalError(e) && e.code === 'SURETY_CONDITIONAL_INVALID_ETAG',
  );
  assert.throws(
    () => versionETag(-1),
    (e: unknown) => e instanceof other.ConditionalError && e.code === 'SURETY_CONDITIONAL_INVALID_VERSION',
  );
});

test('plain errors and look-alikes without the brand are not ours', () => {
  const fake = Object.assign(new TypeError('x'), { code: 'SURETY_CONDITIONAL_INVALID_ETAG' });
  assert.ok(!(fake instanceof ConditionalError) && !isConditionalError(fake));
  assert.ok(!isConditionalError(null) && !isConditionalError('SURETY_CONDITIONAL_INVALID_ETAG'));
});
