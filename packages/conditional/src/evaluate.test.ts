import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConditionalError } from './errors.js';
import { type CurrentState, evaluatePreconditions, type PreconditionResult } from './evaluate.js';

// Last modified at 12:00:00.500: HTTP dates have one-second resolution, so "12:00:00" is not earlier.
const T = new Date('2024-01-01T12:00:00.500Z');
const AT = 'Mon, 01 Jan 2024 12:00:00 GMT';
const BEFORE = 'Mon, 01 Jan 2024 11:59:59 GMT';
const AFTER = 'Mon, 01 Jan 2024 12:00:01 GMT';

const v7: CurrentState = { exists: true, etag: '"v7"', lastModified: T };
const weakV7: CurrentState = { exists: true, etag: 'W/"v7"', lastModified: T };
const noValidators: CurrentState = { exists: true };
const missing: CurrentState = { exists: false };

const proceed = (ifMatch = false, conditional = ifMatch): PreconditionResult => ({
  kind: 'proceed',
  outcome: 'proceed',
  ifMatch,
  conditional,
});
const p412 = (header: 'if-match' | 'if-unmodified-since' | 'if-none-match'): PreconditionResult => ({
  kind: 'precondition_failed',
  outcome: 'precondition_failed',
  status: 412,
  header,
});
const p304 = (header: 'if-none-match' | 'if-modified-since'): PreconditionResult => ({
  kind: 'not_modified',
  outcome: 'not_modified',
  status: 304,
  header,
});
const p428: PreconditionResult = {
  kind: 'precondition_required',
  outcome: 'precondition_required',
  status: 428,
};

interface Case {
  name: string;
  method: string;
  headers: Record<string, string | string[]>;
  current: CurrentState;
  require?: boolean;
  lenientDates?: boolean;
  expect: PreconditionResult | { malformed: string };
}

const cases: Case[] = [
  // No preconditions
  { name: 'no headers', method: 'PUT', headers: {}, current: v7, expect: proceed() },
  { name: 'no headers, required', method: 'PUT', headers: {}, current: v7, require: true, expect: p428 },
  { name: 'no headers, required, GET', method: 'GET', headers: {}, current: v7, require: true, expect: p428 },
  {
    name: 'required: If-Modified-Since does not count',
    method: 'PUT',
    headers: { 'if-modified-since': AT },
    current: v7,
    require: true,
    expect: p428,
  },

  // If-Match: strong comparison
  {
    name: 'If-Match current',
    method: 'PUT',
    headers: { 'if-match': '"v7"' },
    current: v7,
    expect: proceed(true),
  },
  {
    name: 'If-Match current, required',
    method: 'PATCH',
    headers: { 'if-match': '"v7"' },
    current: v7,
    require: true,
    expect: proceed(true),
  },
  {
    name: 'If-Match stale',
    method: 'PUT',
    headers: { 'if-match': '"v6"' },
    current: v7,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match list containing current',
    method: 'PUT',
    headers: { 'if-match': '"v5", "v6" ,"v7"' },
    current: v7,
    expect: proceed(true),
  },
  {
    name: 'If-Match weak tag never matches (strong comparison)',
    method: 'PUT',
    headers: { 'if-match': 'W/"v7"' },
    current: v7,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match against a weak current tag never matches',
    method: 'PUT',
    headers: { 'if-match': '"v7"' },
    current: weakV7,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match mixed weak/strong list: the strong one matches',
    method: 'PUT',
    headers: { 'if-match': 'W/"v7", "v7"' },
    current: v7,
    expect: proceed(true),
  },
  {
    name: 'If-Match mixed weak/strong list: only the weak one names current',
    method: 'PUT',
    headers: { 'if-match': '"v6", W/"v7"' },
    current: v7,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match over several header lines',
    method: 'PUT',
    headers: { 'if-match': ['"v6"', '"v7"'] },
    current: v7,
    expect: proceed(true),
  },
  {
    name: 'If-Match * on existing',
    method: 'PUT',
    headers: { 'if-match': '*' },
    current: v7,
    expect: proceed(true),
  },
  {
    name: 'If-Match * on missing',
    method: 'PUT',
    headers: { 'if-match': '*' },
    current: missing,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match * on existing without a tag',
    method: 'DELETE',
    headers: { 'if-match': '*' },
    current: noValidators,
    expect: proceed(true),
  },
  {
    name: 'If-Match on a resource without a tag',
    method: 'PUT',
    headers: { 'if-match': '"v7"' },
    current: noValidators,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match on missing',
    method: 'PUT',
    headers: { 'if-match': '"v7"' },
    current: missing,
    expect: p412('if-match'),
  },
  {
    name: 'If-Match on GET, stale',
    method: 'GET',
    headers: { 'if-match': '"v6"' },
    current: v7,
    expect: p412('if-match'),
  },

  // If-Unmodified-Since, and If-Match's precedence over it
  {
    name: 'If-Unmodified-Since at last modification (second resolution)',
    method: 'PUT',
    headers: { 'if-unmodified-since': AT },
    current: v7,
    expect: proceed(false, true),
  },
  {
    name: 'If-Unmodified-Since after last modification',
    method: 'PUT',
    headers: { 'if-unmodified-since': AFTER },
    current: v7,
    expect: proceed(false, true),
  },
  {
    name: 'If-Unmodified-Since before last modification',
    method: 'PUT',
    headers: { 'if-unmodified-since': BEFORE },
    current: v7,
    expect: p412('if-unmodified-since'),
  },
  {
    name: 'If-Unmodified-Since satisfies require',
    method: 'PUT',
    headers: { 'if-unmodified-since': AT },
    current: v7,
    require: true,
    expect: proceed(false, true),
  },
  {
    name: 'If-Unmodified-Since without a lastModified cannot be verified: 412',
    method: 'PUT',
    headers: { 'if-unmodified-since': AT },
    current: noValidators,
    expect: p412('if-unmodified-since'),
  },
  {
    name: 'If-Unmodified-Since on missing: 412',
    method: 'PUT',
    headers: { 'if-unmodified-since': AT },
    current: missing,
    expect: p412('if-unmodified-since'),
  },
  {
    name: 'If-Match true takes precedence over a false If-Unmodified-Since',
    method: 'PUT',
    headers: { 'if-match': '"v7"', 'if-unmodified-since': BEFORE },
    current: v7,
    expect: proceed(true),
  },
  {
    name: 'If-Match false decides even when If-Unmodified-Since is true',
    method: 'PUT',
    headers: { 'if-match': '"v6"', 'if-unmodified-since': AFTER },
    current: v7,
    expect: p412('if-match'),
  },

  // If-None-Match: weak comparison; 304 for GET/HEAD, 412 otherwise
  {
    name: 'GET If-None-Match current',
    method: 'GET',
    headers: { 'if-none-match': '"v7"' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'HEAD If-None-Match current',
    method: 'HEAD',
    headers: { 'if-none-match': '"v7"' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'get (lower case) If-None-Match current',
    method: 'get',
    headers: { 'if-none-match': '"v7"' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'GET If-None-Match weak tag matches weakly',
    method: 'GET',
    headers: { 'if-none-match': 'W/"v7"' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'GET If-None-Match strong tag against a weak current',
    method: 'GET',
    headers: { 'if-none-match': '"v7"' },
    current: weakV7,
    expect: p304('if-none-match'),
  },
  {
    name: 'GET If-None-Match stale',
    method: 'GET',
    headers: { 'if-none-match': '"v6"' },
    current: v7,
    expect: proceed(false, true),
  },
  {
    name: 'GET If-None-Match mixed list containing current',
    method: 'GET',
    headers: { 'if-none-match': '"v5", W/"v6", W/"v7"' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'GET If-None-Match * on existing',
    method: 'GET',
    headers: { 'if-none-match': '*' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'GET If-None-Match * on missing',
    method: 'GET',
    headers: { 'if-none-match': '*' },
    current: missing,
    expect: proceed(false, true),
  },
  {
    name: 'PUT If-None-Match current → 412',
    method: 'PUT',
    headers: { 'if-none-match': '"v7"' },
    current: v7,
    expect: p412('if-none-match'),
  },
  {
    name: 'PUT If-None-Match * on existing → 412',
    method: 'PUT',
    headers: { 'if-none-match': '*' },
    current: v7,
    expect: p412('if-none-match'),
  },
  {
    name: 'PUT If-None-Match * on missing → create',
    method: 'PUT',
    headers: { 'if-none-match': '*' },
    current: missing,
    expect: proceed(false, true),
  },
  {
    name: 'PUT If-None-Match * on missing satisfies require',
    method: 'PUT',
    headers: { 'if-none-match': '*' },
    current: missing,
    require: true,
    expect: proceed(false, true),
  },
  {
    name: 'DELETE If-None-Match current → 412',
    method: 'DELETE',
    headers: { 'if-none-match': 'W/"v7"' },
    current: v7,
    expect: p412('if-none-match'),
  },
  {
    name: 'If-Match true, then If-None-Match false on GET → 304',
    method: 'GET',
    headers: { 'if-match': '"v7"', 'if-none-match': '"v7"' },
    current: v7,
    expect: p304('if-none-match'),
  },
  {
    name: 'If-Match false is evaluated before If-None-Match',
    method: 'GET',
    headers: { 'if-match': '"v6"', 'if-none-match': '"v7"' },
    current: v7,
    expect: p412('if-match'),
  },

  // If-Modified-Since: GET/HEAD only, ignored with If-None-Match, ignored when invalid
  {
    name: 'GET If-Modified-Since at last modification',
    method: 'GET',
    headers: { 'if-modified-since': AT },
    current: v7,
    expect: p304('if-modified-since'),
  },
  {
    name: 'GET If-Modified-Since after',
    method: 'GET',
    headers: { 'if-modified-since': AFTER },
    current: v7,
    expect: p304('if-modified-since'),
  },
  {
    name: 'GET If-Modified-Since before',
    method: 'GET',
    headers: { 'if-modified-since': BEFORE },
    current: v7,
    expect: proceed(),
  },
  {
    name: 'PUT ignores If-Modified-Since',
    method: 'PUT',
    headers: { 'if-modified-since': AFTER },
    current: v7,
    expect: proceed(),
  },
  {
    name: 'GET If-Modified-Since is ignored when If-None-Match is present',
    method: 'GET',
    headers: { 'if-none-match': '"v6"', 'if-modified-since': AFTER },
    current: v7,
    expect: proceed(false, true),
  },
  {
    name: 'GET invalid If-Modified-Since is ignored (RFC 9110 §13.1.3)',
    method: 'GET',
    headers: { 'if-modified-since': `${AFTER}; length=12` },
    current: v7,
    expect: proceed(),
  },
  {
    name: 'GET If-Modified-Since without lastModified',
    method: 'GET',
    headers: { 'if-modified-since': AFTER },
    current: noValidators,
    expect: proceed(),
  },
  {
    name: 'GET If-Modified-Since on missing',
    method: 'GET',
    headers: { 'if-modified-since': AFTER },
    current: missing,
    expect: proceed(),
  },

  // Malformed → 400, before require and before any evaluation
  {
    name: 'If-Match unquoted',
    method: 'PUT',
    headers: { 'if-match': 'v7' },
    current: v7,
    expect: { malformed: 'if-match' },
  },
  {
    name: 'If-Match empty',
    method: 'PUT',
    headers: { 'if-match': '' },
    current: v7,
    expect: { malformed: 'if-match' },
  },
  {
    name: 'If-Match * in a list',
    method: 'PUT',
    headers: { 'if-match': '*, "v7"' },
    current: v7,
    expect: { malformed: 'if-match' },
  },
  {
    name: 'If-Match lower-case w/',
    method: 'PUT',
    headers: { 'if-match': 'w/"v7"' },
    current: v7,
    expect: { malformed: 'if-match' },
  },
  {
    name: 'If-Match one bad element in a list that would match',
    method: 'PUT',
    headers: { 'if-match': '"v7", v8' },
    current: v7,
    expect: { malformed: 'if-match' },
  },
  {
    name: 'If-None-Match unterminated',
    method: 'GET',
    headers: { 'if-none-match': '"v7' },
    current: v7,
    expect: { malformed: 'if-none-match' },
  },
  {
    name: 'If-None-Match malformed even though If-Match decides first',
    method: 'PUT',
    headers: { 'if-match': '"v6"', 'if-none-match': 'nope' },
    current: v7,
    expect: { malformed: 'if-none-match' },
  },
  {
    name: 'If-Unmodified-Since not a date',
    method: 'PUT',
    headers: { 'if-unmodified-since': '2024-01-01' },
    current: v7,
    expect: { malformed: 'if-unmodified-since' },
  },
  {
    name: 'If-Unmodified-Since list of dates',
    method: 'PUT',
    headers: { 'if-unmodified-since': `${AT}, ${AFTER}` },
    current: v7,
    expect: { malformed: 'if-unmodified-since' },
  },
  {
    name: 'malformed If-Match with require is 400, not 428',
    method: 'PUT',
    headers: { 'if-match': 'garbage' },
    current: v7,
    require: true,
    expect: { malformed: 'if-match' },
  },
  {
    name: 'lenientDates: invalid If-Unmodified-Since is ignored',
    method: 'PUT',
    headers: { 'if-unmodified-since': 'garbage' },
    current: v7,
    lenientDates: true,
    expect: proceed(),
  },
  {
    name: 'lenientDates: ignored If-Unmodified-Since does not satisfy require',
    method: 'PUT',
    headers: { 'if-unmodified-since': 'garbage' },
    current: v7,
    lenientDates: true,
    require: true,
    expect: p428,
  },

  // Methods that ignore preconditions (RFC 9110 §13.2.1)
  {
    name: 'OPTIONS ignores preconditions',
    method: 'OPTIONS',
    headers: { 'if-match': '"v6"' },
    current: v7,
    expect: proceed(),
  },
];

describe('evaluatePreconditions', () => {
  for (const c of cases) {
    test(`${c.method} ${c.name}`, () => {
      const result = evaluatePreconditions({
        method: c.method,
        headers: c.headers,
        current: c.current,
        require: c.require,
        lenientDates: c.lenientDates,
      });
      if ('malformed' in c.expect) {
        assert.equal(result.outcome, 'malformed_precondition');
        if (result.outcome === 'malformed_precondition') {
          assert.equal(result.status, 400);
          assert.equal(result.header, c.expect.malformed);
          assert.ok(result.detail.length > 0);
        }
      } else {
        assert.deepEqual(result, c.expect);
      }
    });
  }

  test('reads a Fetch Headers object too', () => {
    const headers = new Headers({ 'If-None-Match': 'W/"v7"' });
    assert.deepEqual(evaluatePreconditions({ method: 'GET', headers, current: v7 }), p304('if-none-match'));
  });

  test('a server-side etag that is not an entity tag is a programming error', () => {
    assert.throws(
      () =>
        evaluatePreconditions({
          method: 'PUT',
          headers: { 'if-match': '"v7"' },
          current: { exists: true, etag: 'v7' },
        }),
      ConditionalError,
    );
  });
});
