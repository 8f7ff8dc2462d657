import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseProblem } from './parse-problem.js';
import { type Problem, problemBody, problemType } from './problem.js';

describe('problemBody', () => {
  const problem: Problem = {
    status: 412,
    code: 'precondition_failed',
    title: 'Precondition failed',
    detail: 'd',
  };

  test('writes the RFC 9457 members, then code, then instance, in that order', () => {
    assert.equal(
      problemBody(problem, '/v1/orders/o_1'),
      '{"type":"https://surety.dev/problems/precondition-failed","title":"Precondition failed","status":412,' +
        '"detail":"d","code":"precondition_failed","instance":"/v1/orders/o_1"}',
    );
  });

  test('has no instance member without an instance, and never writes headers', () => {
    const body = problemBody({ ...problem, headers: { 'retry-after': '1' } });
    assert.equal(JSON.parse(body).instance, undefined);
    assert.doesNotMatch(body, /retry-after|headers/);
  });

  test('writes extension members after the standard ones; a standard name is replaced in place', () => {
    assert.equal(
      problemBody({ ...problem, extensions: { errors: [], detail: 'x' } }, '/p'),
      '{"type":"https://surety.dev/problems/precondition-failed","title":"Precondition failed","status":412,' +
        '"detail":"x","code":"precondition_failed","instance":"/p","errors":[]}',
    );
  });

  test('derives type from the code, lower case with hyphens', () => {
    assert.equal(
      problemType('webhook_timestamp_too_old'),
      'https://surety.dev/problems/webhook-timestamp-too-old',
    );
    assert.equal(problemType('DEADLINE_EXCEEDED'), 'https://surety.dev/problems/deadline-exceeded');
  });

  test('reads back what it writes', () => {
    const read = parseProblem(problemBody({ ...problem, extensions: { limit: 3 } }, '/p'));
    assert.deepEqual(read, {
      type: 'https://surety.dev/problems/precondition-failed',
      title: 'Precondition failed',
      status: 412,
      detail: 'd',
      code: 'precondition_failed',
      instance: '/p',
      limit: 3,
    });
  });
});

describe('parseProblem', () => {
  const valid = { type: 't', title: 't', status: 400, detail: 'd', code: 'c' };
  const cases: [string, string][] = [
    ['not JSON', '{'],
    ['an array', '[]'],
    ['null', 'null'],
    ['no code', JSON.stringify({ ...valid, code: undefined })],
    ['a status that is not an error', JSON.stringify({ ...valid, status: 200 })],
    ['a status that is not an integer', JSON.stringify({ ...valid, status: 400.5 })],
    ['a status string', JSON.stringify({ ...valid, status: '400' })],
    ['an instance that is not a string', JSON.stringify({ ...valid, instance: 1 })],
  ];
  for (const [name, text] of cases) {
    test(`undefined for ${name}`, () => assert.equal(parseProblem(text), undefined));
  }
  test('accepts the minimal problem', () => assert.deepEqual(parseProblem(JSON.stringify(valid)), valid));
});
