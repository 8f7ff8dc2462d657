import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  hashSecret,
  issueToken,
  looksLikePortalToken,
  parseToken,
  SESSION_ID,
  secretMatches,
} from './token.js';

test('a token names its session and carries a 256-bit secret of which only the hash is kept', () => {
  const { id, token, tokenHash } = issueToken();
  assert.match(id, new RegExp(SESSION_ID));
  assert.ok(looksLikePortalToken(token));
  const parsed = parseToken(token);
  assert.equal(parsed?.id, id);
  assert.equal(Buffer.from(parsed!.secret, 'base64url').length, 32);
  assert.equal(tokenHash, hashSecret(parsed!.secret));
  assert.ok(!token.includes(tokenHash));
  assert.ok(secretMatches(parsed!.secret, tokenHash));
  assert.ok(!secretMatches(`${parsed!.secret.slice(0, -1)}A`, tokenHash) || parsed!.secret.endsWith('A'));
  assert.notEqual(issueToken().token, token);
});

test('malformed tokens parse to nothing', () => {
  const { token } = issueToken();
  for (const bad of [
    '',
    'ps_',
    token.slice(0, -1),
    `${token}x`,
    token.replace('.', '_'),
    `x${token}`,
    token.replace('ps_', 'PS_'),
  ]) {
    assert.equal(parseToken(bad), undefined, bad);
  }
  assert.ok(!secretMatches('x', 'not hex'));
});
