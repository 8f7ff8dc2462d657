import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ALLOWED_CIDRS_ENV, allowListFromEnv, parseAllowList } from './allow-list.js';
import { AllowListError } from './errors.js';

test('empty or unset means nothing is allowed', () => {
  assert.deepEqual(parseAllowList(undefined), []);
  assert.deepEqual(parseAllowList(''), []);
  assert.deepEqual(parseAllowList(' , '), []);
  assert.deepEqual(allowListFromEnv({}), []);
});

test('comma and whitespace separated, bare addresses are single hosts', () => {
  const list = parseAllowList('127.0.0.1/32,::1  10.1.0.0/16\n192.168.5.5');
  assert.deepEqual(
    list.map((c) => c.text),
    ['127.0.0.1/32', '::1/128', '10.1.0.0/16', '192.168.5.5/32'],
  );
  assert.deepEqual(
    parseAllowList(['127.0.0.1/32']).map((c) => c.text),
    ['127.0.0.1/32'],
  );
});

test('errors name the setting and the entry', () => {
  assert.throws(
    () => allowListFromEnv({ [ALLOWED_CIDRS_ENV]: '127.0.0.1/32, 10.0.0.1/8' }),
    (e: unknown) =>
      e instanceof AllowListError &&
      e.code === 'invalid_allow_list' &&
      e.message.startsWith('SURETY_WEBHOOK_ALLOWED_CIDRS: "10.0.0.1/8" has host bits set'),
  );
  assert.throws(() => parseAllowList('localhost'), /"localhost" is not an IPv4 or IPv6 address/);
  assert.throws(() => parseAllowList('10.0.0.0/40'), /invalid prefix length/);
});
