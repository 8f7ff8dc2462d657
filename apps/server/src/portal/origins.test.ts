// The frame-ancestors grammar (origins.ts): each accepted origin goes into a response header, so
// anything that could end the directive, add one, or let any site frame the portal is refused.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkOrigin, checkOrigins, frameAncestorsValue, MAX_FRAME_ANCESTORS } from './origins.js';

const ok = (value: string) => {
  const r = checkOrigin(value);
  assert.equal(r.kind, 'ok', `${value}: ${r.kind === 'invalid' ? r.message : ''}`);
  return r.kind === 'ok' ? r.origin : '';
};
const refused = (value: string) => assert.equal(checkOrigin(value).kind, 'invalid', value);

describe('one origin', () => {
  test('https origins, normalised: lower case, default port dropped', () => {
    assert.equal(ok('https://shop.example.com'), 'https://shop.example.com');
    assert.equal(ok('HTTPS://Shop.Example.COM'), 'https://shop.example.com');
    assert.equal(ok('https://shop.example.com:443'), 'https://shop.example.com');
    assert.equal(ok('https://shop.example.com:8443'), 'https://shop.example.com:8443');
    assert.equal(ok('https://xn--bcher-kva.example'), 'https://xn--bcher-kva.example');
    assert.equal(ok('https://*.example.com'), 'https://*.example.com');
    assert.equal(ok('https://203.0.113.9'), 'https://203.0.113.9');
  });

  test('http for loopback hosts only', () => {
    assert.equal(ok('http://localhost:5173'), 'http://localhost:5173');
    assert.equal(ok('http://127.0.0.1:8080'), 'http://127.0.0.1:8080');
    assert.equal(ok('http://127.0.0.1:80'), 'http://127.0.0.1');
    assert.equal(ok('http://[::1]:3000'), 'http://[::1]:3000');
    for (const v of [
      'http://shop.example.com',
      'http://10.0.0.1',
      'http://*.localhost',
      'http://127.0.0.256',
    ]) {
      refused(v);
    }
  });

  test('wildcards that would let any site frame the portal are refused', () => {
    for (const v of [
      '*',
      'https:',
      'https://*',
      'https://*.com',
      'https://*.*.example.com',
      'https://a.*.example.com',
    ]) {
      refused(v);
    }
  });

  test('anything but scheme://host[:port] is refused: paths, queries, user info, keywords, separators', () => {
    for (const v of [
      'https://shop.example.com/',
      'https://shop.example.com/embed',
      'https://shop.example.com?x=1',
      'https://shop.example.com#x',
      'https://user@shop.example.com',
      "'self'",
      "'none'",
      'shop.example.com',
      'wss://shop.example.com',
      'javascript:alert(1)',
      'data:',
      'https://shop.example.com; script-src *',
      'https://shop.example.com https://evil.example',
      'https://shop.example.com,https://evil.example',
      'https://shop.example.com\r\nSet-Cookie: x=1',
      'https://shop\u0000.example.com',
      'https://bücher.example',
      'https://-shop.example.com',
      'https://shop.example.com:0',
      'https://shop.example.com:65536',
      'https://shop.example.com:0443',
      ' https://shop.example.com',
      '',
    ]) {
      refused(v);
    }
  });
});

describe('the list', () => {
  test('every error is named by its index; a repeat (once normalised) is refused', () => {
    const r = checkOrigins(['https://a.example', 'http://b.example', 'HTTPS://A.EXAMPLE:443']);
    assert.equal(r.kind, 'invalid');
    if (r.kind !== 'invalid') return;
    assert.deepEqual(
      r.errors.map((e) => e.path),
      ['/frameAncestors/1', '/frameAncestors/2'],
    );
  });

  test(`at most ${MAX_FRAME_ANCESTORS}`, () => {
    const many = Array.from({ length: MAX_FRAME_ANCESTORS + 1 }, (_, i) => `https://s${i}.example`);
    assert.equal(checkOrigins(many).kind, 'invalid');
    assert.equal(checkOrigins(many.slice(1)).kind, 'ok');
  });

  test("the directive's value: the origins, or 'none'", () => {
    assert.equal(frameAncestorsValue([]), "'none'");
    assert.equal(
      frameAncestorsValue(['https://a.example', 'https://b.example']),
      'https://a.example https://b.example',
    );
  });
});
