import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAllowList } from './allow-list.js';
import { DnsError, SsrfBlockedError } from './errors.js';
import { type Resolver, resolveTarget } from './resolve.js';

const fixed =
  (answers: Record<string, string[]>): Resolver =>
  async (hostname) =>
    (answers[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

test('returns the first answer when every answer is allowed', async () => {
  const r = await resolveTarget('hooks.example', {
    resolver: fixed({ 'hooks.example': ['8.8.8.8', '2606:4700::1111'] }),
  });
  assert.equal(r.address, '8.8.8.8');
  assert.equal(r.family, 4);
  assert.deepEqual(r.addresses, ['8.8.8.8', '2606:4700::1111']);
});

test('refuses the name if ANY answer is blocked, whatever its position', async () => {
  for (const answers of [
    ['8.8.8.8', '10.0.0.1'],
    ['10.0.0.1', '8.8.8.8'],
    ['2606:4700::1111', '::ffff:169.254.169.254'],
  ]) {
    await assert.rejects(
      resolveTarget('mixed.example', { resolver: fixed({ 'mixed.example': answers }) }),
      (e: unknown) => e instanceof SsrfBlockedError && e.code === 'ssrf_blocked' && e.blocked.length === 1,
    );
  }
});

test('IP literals are checked without calling the resolver', async () => {
  let calls = 0;
  const resolver: Resolver = async () => {
    calls++;
    return [{ address: '8.8.8.8', family: 4 }];
  };
  await assert.rejects(resolveTarget('[::1]', { resolver }), SsrfBlockedError);
  assert.equal((await resolveTarget('8.8.4.4', { resolver })).address, '8.8.4.4');
  assert.equal(calls, 0);
});

test('the allow-list applies to resolved answers', async () => {
  const resolver = fixed({ 'dev.test': ['127.0.0.1'], 'both.test': ['127.0.0.1', '::1'] });
  const allowList = parseAllowList('127.0.0.1/32');
  assert.equal((await resolveTarget('dev.test', { resolver, allowList })).address, '127.0.0.1');
  await assert.rejects(resolveTarget('both.test', { resolver, allowList }), /::1 \(loopback\)/);
});

test('a resolver answer that is not an IP address is blocked', async () => {
  await assert.rejects(
    resolveTarget('odd.test', { resolver: fixed({ 'odd.test': ['not-an-ip'] }) }),
    SsrfBlockedError,
  );
});

test('no answer, a resolver error and a slow resolver are dns_failed', async () => {
  await assert.rejects(
    resolveTarget('none.test', { resolver: fixed({}) }),
    (e: unknown) => e instanceof DnsError && e.code === 'dns_failed',
  );
  const failing: Resolver = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND x'), { code: 'ENOTFOUND' });
  };
  await assert.rejects(resolveTarget('x.test', { resolver: failing }), /ENOTFOUND/);
  const slow: Resolver = () => new Promise(() => {});
  await assert.rejects(
    resolveTarget('slow.test', { resolver: slow, timeoutMs: 20 }),
    /timed out after 20 ms/,
  );
});
