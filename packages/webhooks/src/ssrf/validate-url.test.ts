import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAllowList } from './allow-list.js';
import { type UrlRejectionReason, validateWebhookUrl } from './validate-url.js';

// [url, expected: 'ok' | reason, normalised host when it matters]. allowHttp is on for this table
// so that IP spellings are tested without the https rule hiding them.
const TABLE: ReadonlyArray<readonly [string, 'ok' | UrlRejectionReason, string?]> = [
  ['https://hooks.example.com/in', 'ok'],
  ['http://hooks.example.com:8080/in?x=1', 'ok'],
  ['https://93.184.215.14/in', 'ok', '93.184.215.14'],
  ['https://[2606:4700::1111]/in', 'ok', '[2606:4700::1111]'],
  ['https://[::ffff:8.8.8.8]/', 'ok', '[::ffff:808:808]'],
  ['not a url', 'invalid_url'],
  ['/relative/path', 'invalid_url'],
  ['ftp://example.com/', 'unsupported_protocol'],
  ['file:///etc/passwd', 'unsupported_protocol'],
  ['gopher://127.0.0.1:6379/_INFO', 'unsupported_protocol'],
  ['javascript:alert(1)', 'unsupported_protocol'],
  ['https://user:pass@example.com/', 'credentials_in_url'],
  ['https://user@example.com/', 'credentials_in_url'],
  ['https://example.com/#frag', 'fragment_in_url'],
  ['https://example.com/#', 'fragment_in_url'],
  ['https://example.com:0/', 'invalid_port'],
  ['https://example.com:65536/', 'invalid_url'],
  [`https://example.com/${'a'.repeat(2100)}`, 'url_too_long'],
  // IPv4 spellings: WHATWG parsing normalises them, the table classifies the result
  ['http://127.0.0.1/', 'blocked_address', '127.0.0.1'],
  ['http://2130706433/', 'blocked_address', '127.0.0.1'],
  ['http://0177.0.0.1/', 'blocked_address', '127.0.0.1'],
  ['http://0x7f.0.0.1/', 'blocked_address', '127.0.0.1'],
  ['http://0x7f000001/', 'blocked_address', '127.0.0.1'],
  ['http://127.1/', 'blocked_address', '127.0.0.1'],
  ['http://127.0.1/', 'blocked_address', '127.0.0.1'],
  ['http://127.0.0.1./', 'blocked_address', '127.0.0.1'],
  ['http://%31%32%37.0.0.1/', 'blocked_address', '127.0.0.1'],
  ['http://１２７.０.０.１/', 'blocked_address', '127.0.0.1'],
  ['http://0/', 'blocked_address', '0.0.0.0'],
  ['http://0.0.0.0/', 'blocked_address', '0.0.0.0'],
  ['http://10.0.0.1/', 'blocked_address'],
  ['http://172.16.0.1/', 'blocked_address'],
  ['http://192.168.0.1/', 'blocked_address'],
  ['http://169.254.169.254/latest/meta-data/', 'blocked_address'],
  ['http://2852039166/', 'blocked_address', '169.254.169.254'],
  ['http://0xa9.0xfe.0xa9.0xfe/', 'blocked_address', '169.254.169.254'],
  ['http://100.64.0.1/', 'blocked_address'],
  ['http://198.18.0.1/', 'blocked_address'],
  ['http://224.0.0.1/', 'blocked_address'],
  ['http://255.255.255.255/', 'blocked_address'],
  // IPv6 and the IPv4-in-IPv6 forms
  ['http://[::1]/', 'blocked_address', '[::1]'],
  ['http://[0:0:0:0:0:0:0:1]/', 'blocked_address', '[::1]'],
  ['http://[::]/', 'blocked_address', '[::]'],
  ['http://[::ffff:127.0.0.1]/', 'blocked_address', '[::ffff:7f00:1]'],
  ['http://[::ffff:7f00:1]/', 'blocked_address', '[::ffff:7f00:1]'],
  ['http://[::ffff:a9fe:a9fe]/', 'blocked_address'],
  ['http://[64:ff9b::7f00:1]/', 'blocked_address'],
  ['http://[64:ff9b::127.0.0.1]/', 'blocked_address', '[64:ff9b::7f00:1]'],
  ['http://[2002:7f00:1::]/', 'blocked_address'],
  ['http://[::127.0.0.1]/', 'blocked_address', '[::7f00:1]'],
  ['http://[fc00::1]/', 'blocked_address'],
  ['http://[fd00:ec2::254]/', 'blocked_address'],
  ['http://[fe80::1]/', 'blocked_address'],
  ['http://[fe80::1%25eth0]/', 'invalid_url'], // WHATWG URL has no zone ids
  ['http://[ff02::1]/', 'blocked_address'],
  ['http://[2001:db8::1]/', 'blocked_address'],
  // names: localhost is loopback by definition (RFC 6761); other names are checked at delivery
  ['http://localhost/', 'blocked_address'],
  ['http://LOCALHOST./', 'blocked_address'],
  ['http://app.localhost/', 'blocked_address'],
  ['http://internal.example/', 'ok'],
  ['http://127.0.0.1.nip.io/', 'ok'],
];

describe('validateWebhookUrl', () => {
  for (const [url, expected, host] of TABLE) {
    test(`${url.slice(0, 60)} -> ${expected}`, () => {
      const v = validateWebhookUrl(url, { allowHttp: true });
      assert.equal(v.ok ? 'ok' : v.reason, expected, v.ok ? '' : v.message);
      if (host !== undefined) {
        const parsed = v.ok ? v.url : new URL(url);
        assert.equal(parsed.hostname, host);
      }
    });
  }

  test('https is required unless allowHttp', () => {
    const v = validateWebhookUrl('http://hooks.example.com/');
    assert.equal(v.ok, false);
    assert.equal(!v.ok && v.reason, 'https_required');
    assert.equal(validateWebhookUrl('https://hooks.example.com/').ok, true);
  });

  test('the allow-list opens IP literals in the listed ranges only', () => {
    const allowList = parseAllowList('127.0.0.1/32');
    assert.equal(validateWebhookUrl('http://127.0.0.1:3000/', { allowHttp: true, allowList }).ok, true);
    assert.equal(validateWebhookUrl('http://2130706433:3000/', { allowHttp: true, allowList }).ok, true);
    assert.equal(validateWebhookUrl('http://127.0.0.2:3000/', { allowHttp: true, allowList }).ok, false);
    assert.equal(validateWebhookUrl('http://[::1]:3000/', { allowHttp: true, allowList }).ok, false);
  });

  test('maxLength is configurable', () => {
    const v = validateWebhookUrl('https://example.com/abcdef', { maxLength: 20 });
    assert.equal(!v.ok && v.reason, 'url_too_long');
  });

  test('the classification of a blocked literal is returned', () => {
    const v = validateWebhookUrl('http://[::ffff:169.254.169.254]/', { allowHttp: true });
    assert.equal(v.ok, false);
    assert.equal(v.address?.category, 'cloud-metadata');
  });
});

test('UrlValidation is tagged kind: valid carries the URL, invalid the reason; ok says the same', () => {
  const read = (v: ReturnType<typeof validateWebhookUrl>) =>
    v.kind === 'valid' ? v.url.host : `${v.reason}: ${v.message.length > 0}`;
  assert.equal(read(validateWebhookUrl('https://hooks.example.com/in')), 'hooks.example.com');
  assert.equal(read(validateWebhookUrl('ftp://example.com/')), 'unsupported_protocol: true');
  for (const url of ['https://hooks.example.com/in', 'not a url']) {
    const v = validateWebhookUrl(url);
    assert.equal(v.ok, v.kind === 'valid');
  }
});
