import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatIp, parseCidr, parseIp } from './ip.js';

test('parseIp and formatIp round-trip to RFC 5952 text', () => {
  const cases: Array<[string, string]> = [
    ['127.0.0.1', '127.0.0.1'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['::ffff:1.2.3.4', '::ffff:102:304'],
    ['[fe80::1%25eth0]', 'fe80::1'],
    ['fe80::1%eth0', 'fe80::1'],
  ];
  for (const [input, output] of cases) assert.equal(formatIp(parseIp(input)!), output, input);
});

test('parseIp refuses what is not a canonical address', () => {
  for (const bad of [
    '',
    'localhost',
    '127.1',
    '0x7f000001',
    '2130706433',
    '1.2.3.256',
    ':::',
    '1:2:3:4:5:6:7:8:9',
  ]) {
    assert.equal(parseIp(bad), undefined, bad);
  }
});

test('parseCidr', () => {
  assert.deepEqual(
    ['127.0.0.1/32', '127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', '0.0.0.0/0'].map((t) => {
      const c = parseCidr(t);
      return typeof c === 'string' ? c : c.text;
    }),
    ['127.0.0.1/32', '127.0.0.1/32', '10.0.0.0/8', '::1/128', 'fd00::/8', '0.0.0.0/0'],
  );
  assert.match(parseCidr('10.0.0.1/8') as string, /host bits set.*10\.0\.0\.0\/8/);
  assert.match(parseCidr('10.0.0.0/33') as string, /invalid prefix/);
  assert.match(parseCidr('::/129') as string, /invalid prefix/);
  assert.match(parseCidr('10.0.0.0/') as string, /invalid prefix/);
  assert.match(parseCidr('10.0.0.0/-1') as string, /invalid prefix/);
  assert.match(parseCidr('example.com/32') as string, /not an IPv4 or IPv6/);
  assert.match(parseCidr('fe80::%eth0/64') as string, /not an IPv4 or IPv6/);
});
