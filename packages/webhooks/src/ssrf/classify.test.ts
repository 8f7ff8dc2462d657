import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAllowList } from './allow-list.js';
import { type AddressCategory, classifyAddress, isBlockedAddress } from './classify.js';

// [address, category]; every category but `global` is blocked.
const TABLE: ReadonlyArray<readonly [string, AddressCategory]> = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'this-network'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['100.64.0.1', 'cgnat'],
  ['100.100.100.200', 'cgnat'], // Alibaba Cloud metadata
  ['100.127.255.255', 'cgnat'],
  ['100.128.0.0', 'global'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.169.254', 'cloud-metadata'],
  ['169.254.0.1', 'link-local'],
  ['172.15.255.255', 'global'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'global'],
  ['192.0.0.8', 'ietf-protocol'],
  ['192.0.2.1', 'documentation'],
  ['192.88.99.1', '6to4-relay'],
  ['192.168.1.1', 'private'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', 'global'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['8.8.8.8', 'global'],
  ['93.184.215.14', 'global'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'cloud-metadata'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:8.8.8.8', 'global'],
  ['::127.0.0.1', 'ipv4-compatible'],
  ['::8.8.8.8', 'ipv4-compatible'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'cloud-metadata'],
  ['64:ff9b::808:808', 'global'],
  ['64:ff9b:1::1', 'nat64-local'],
  ['100::1', 'discard'],
  ['2001::1', 'teredo'],
  ['2001:10::1', 'ietf-protocol'],
  ['2001:db8::1', 'documentation'],
  ['2002:7f00:1::', '6to4'],
  ['2002:808:808::1', '6to4'],
  ['3fff::1', 'documentation'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'unique-local'], // AWS IPv6 instance metadata
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'site-local'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'reserved'],
  ['::2', 'ipv4-compatible'],
  ['2606:4700:4700::1111', 'global'],
  ['2a00:1450:4001:80b::200e', 'global'],
  // not addresses
  ['', 'invalid'],
  ['example.com', 'invalid'],
  ['127.1', 'invalid'], // URL parsing normalises this; a resolver never returns it
  ['0x7f.0.0.1', 'invalid'],
  ['1.2.3.4.5', 'invalid'],
];

describe('classifyAddress', () => {
  for (const [address, category] of TABLE) {
    test(`${address || '(empty)'} is ${category}`, () => {
      const c = classifyAddress(address);
      assert.equal(c.category, category);
      assert.equal(c.blocked, category !== 'global');
      assert.equal(isBlockedAddress(address), category !== 'global');
    });
  }

  test('embedded IPv4 addresses are reported', () => {
    assert.equal(classifyAddress('2002:7f00:1::').embedded?.address, '127.0.0.1');
    assert.equal(classifyAddress('::ffff:127.0.0.1').embedded?.category, 'loopback');
    assert.equal(classifyAddress('64:ff9b::808:808').embedded?.address, '8.8.8.8');
  });

  test('addresses come back canonical', () => {
    assert.equal(classifyAddress('0:0:0:0:0:FFFF:7F00:0001').address, '::ffff:7f00:1');
    assert.equal(classifyAddress('[::1]').address, '::1');
  });
});

describe('isBlockedAddress with an allow-list', () => {
  const allow = parseAllowList('127.0.0.1/32, 10.1.2.0/24, fd00:1::/64');
  test('opens exactly the listed ranges', () => {
    assert.equal(isBlockedAddress('127.0.0.1', allow), false);
    assert.equal(isBlockedAddress('127.0.0.2', allow), true);
    assert.equal(isBlockedAddress('10.1.2.200', allow), false);
    assert.equal(isBlockedAddress('10.1.3.1', allow), true);
    assert.equal(isBlockedAddress('fd00:1::5', allow), false);
    assert.equal(isBlockedAddress('fd00:2::5', allow), true);
    assert.equal(isBlockedAddress('::1', allow), true);
  });
  test('an IPv4 entry covers the IPv4-mapped form of the same host, not NAT64', () => {
    assert.equal(isBlockedAddress('::ffff:127.0.0.1', allow), false);
    assert.equal(isBlockedAddress('::ffff:127.0.0.2', allow), true);
    assert.equal(isBlockedAddress('64:ff9b::127.0.0.1', allow), true);
  });
  test('anything that is not an IP stays blocked', () => {
    assert.equal(isBlockedAddress('localhost', parseAllowList('0.0.0.0/0, ::/0')), true);
  });
});
