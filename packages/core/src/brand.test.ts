// brandError: two installed copies of a package (and of @surety/core itself) recognise each
// other's errors; a look-alike does not pass; a hierarchy's classes keep their own brands; an error
// branded by hand the way the packages did before this helper is still recognised.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brandError } from './brand.js';

/** One "installed copy" of a package's errors, built on the given copy of @surety/core. */
function packageCopy(brand: typeof brandError) {
  class PkgError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
      this.name = 'PkgError';
    }
  }
  const isPkgError = brand(PkgError, 'surety.test.error');
  class NotFound extends PkgError {
    declare readonly code: 'SURETY_NOT_FOUND';
    constructor() {
      super('SURETY_NOT_FOUND', 'no such thing');
    }
  }
  const isNotFound = brand(NotFound, 'surety.test.error.SURETY_NOT_FOUND');
  class Limit extends PkgError {
    declare readonly code: 'SURETY_LIMIT';
    constructor() {
      super('SURETY_LIMIT', 'too many');
    }
  }
  const isLimit = brand(Limit, 'surety.test.error.SURETY_LIMIT');
  return { PkgError, isPkgError, NotFound, isNotFound, Limit, isLimit };
}

const coreCopy = (await import(`./brand.js?copy=${Date.now()}`)) as typeof import('./brand.js');
const a = packageCopy(brandError);
const b = packageCopy(coreCopy.brandError); // another copy of the package on another copy of core
const c = packageCopy(brandError); // another copy of the package on the same core

test('the copies are different classes and modules', () => {
  assert.notEqual(coreCopy.brandError, brandError);
  assert.notEqual(a.NotFound, b.NotFound);
  assert.notEqual(a.NotFound, c.NotFound);
});

test("each copy recognises the other's errors, by class, through instanceof and the guards", () => {
  for (const [mine, theirs] of [
    [a, b],
    [b, a],
    [a, c],
  ] as const) {
    const e = new theirs.NotFound();
    assert.ok(e instanceof mine.NotFound && e instanceof mine.PkgError);
    assert.ok(mine.isNotFound(e) && mine.isPkgError(e));
    assert.ok(!(e instanceof mine.Limit) && !mine.isLimit(e));
    assert.ok(!(new theirs.PkgError('X', 'x') instanceof mine.NotFound));
    assert.ok(new theirs.PkgError('X', 'x') instanceof mine.PkgError);
    assert.ok(e instanceof Error);
  }
});

test('look-alikes, plain errors and non-objects are not branded', () => {
  const fake = Object.assign(new Error('x'), { code: 'SURETY_NOT_FOUND', name: 'PkgError' });
  assert.ok(!(fake instanceof a.PkgError) && !a.isPkgError(fake) && !a.isNotFound(fake));
  for (const v of [null, undefined, 'SURETY_NOT_FOUND', 1, {}]) assert.ok(!a.isPkgError(v));
  // The brand is not an own, enumerable field: serialising an error does not carry it.
  assert.deepEqual(Object.getOwnPropertySymbols(new a.NotFound()), []);
  assert.equal(JSON.stringify(new a.NotFound()), '{"code":"SURETY_NOT_FOUND","name":"PkgError"}');
});

test('a subclass derived without a brand answers instanceof by its prototype chain', () => {
  class Mine extends a.NotFound {}
  assert.ok(new Mine() instanceof Mine && new Mine() instanceof a.NotFound);
  assert.ok(!(new a.NotFound() instanceof Mine), 'not the parent brand');
});

test('an error branded by hand the old way (a prototype getter) and a helper-branded one agree', () => {
  const kOld = Symbol.for('surety.test.error');
  class OldPkgError extends Error {
    get [kOld](): true {
      return true;
    }
    static [Symbol.hasInstance](value: unknown): boolean {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kOld] === true;
    }
  }
  assert.ok(new OldPkgError('x') instanceof a.PkgError && a.isPkgError(new OldPkgError('x')));
  assert.ok(new a.NotFound() instanceof OldPkgError);
});
