#!/usr/bin/env node
// Writes surety.json: our own signature vectors, shared by sign.test.ts and verify.test.ts.
// It computes every signature with node:crypto directly, not with the package, so the package's
// sign is checked against an independent implementation of the two formats.
// Usage: node packages/webhook-verify/test/vectors/generate.mjs
import { createHmac, createPrivateKey, createPublicKey, sign as edSign } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const T = 1_700_000_000;
const ID = 'evt_2bRm3nXc8Vd1Kq9Lp0Zy';
const BODY =
  '{"id":"evt_2bRm3nXc8Vd1Kq9Lp0Zy","type":"order.shipped","data":{"order":"ord_42","amount":1200}}';
// The same event id, not the first key, its "2" written as an escape.
const BODY_ID_LATER = '{"type":"order.shipped","id":"evt_\\u0032bRm3nXc8Vd1Kq9Lp0Zy","data":{}}';
const BODY_TWO_IDS = '{"id":"evt_2bRm3nXc8Vd1Kq9Lp0Zy","type":"order.shipped","id":"evt_second"}';
const BODY_BOM = `\ufeff${BODY}`;
const BODY_NESTED_ID = '{"type":"order.shipped","data":{"id":"evt_2bRm3nXc8Vd1Kq9Lp0Zy"}}';
const OLD = 'whsec_b2xkLXNlY3JldC1mb3ItdGVzdHMtb25seS0wMDE=';
const NEW = 'whsec_bmV3LXNlY3JldC1mb3ItdGVzdHMtb25seS0wMDAy';
// The seed of the Standard Webhooks Go library's asymmetric test (webhook_asymmetric_test.go).
const SEED = 'VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=';

const surety = (secret, t, body) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.`).update(body).digest('hex');
const stdKey = (secret) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const standard = (secret, id, t, body) =>
  createHmac('sha256', stdKey(secret)).update(`${id}.${t}.`).update(body).digest('base64');
const privateKey = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(SEED, 'base64')]),
  format: 'der',
  type: 'pkcs8',
});
const PUBLIC = `whpk_${createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(12).toString('base64')}`;
const ed = (id, t, body) => edSign(null, Buffer.from(`${id}.${t}.${body}`), privateKey).toString('base64');

const hdr = (signature, t = T, id = ID) => ({
  'webhook-id': id,
  'webhook-timestamp': String(t),
  'webhook-signature': signature,
});
const s = (secret, body = BODY, t = T) => surety(secret, t, body);
const valid = hdr(`t=${T},v1=${s(NEW)}`);

// `signed`: the headers are exactly what sign({ id, timestamp, body, secrets: signingSecrets, format })
// must return. `now` is in seconds. `expect` is "valid" or an error code; `secretIndex` for valid ones.
// `idSigned`: whether the signature covers the id a valid one returns (Standard Webhooks signs
// webhook-id; the Surety scheme signs the body, so only a body with a top-level string id).
const topLevelId = (body) => {
  if (!/^[ \t\n\r]*\{/.test(body)) return undefined;
  try {
    const value = JSON.parse(body);
    return value !== null && typeof value === 'object' && typeof value.id === 'string' ? value.id : undefined;
  } catch {
    return undefined;
  }
};
const v = (o) => {
  const vector = {
    format: 'surety',
    id: ID,
    timestamp: T,
    body: BODY,
    signingSecrets: [NEW],
    verifySecrets: [NEW],
    now: T,
    signed: false,
    ...o,
  };
  return { ...vector, idSigned: vector.format === 'standard' || topLevelId(vector.body) !== undefined };
};

const vectors = [
  v({ name: 'valid', headers: valid, signed: true, expect: 'valid', secretIndex: 0 }),
  v({
    name: 'tampered body (one digit)',
    body: BODY.replace('1200', '1201'),
    headers: valid,
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'tampered body (trailing newline)',
    body: `${BODY}\n`,
    headers: valid,
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'tampered timestamp (t and Webhook-Timestamp moved by one second)',
    headers: hdr(`t=${T + 1},v1=${s(NEW)}`, T + 1),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'tampered Webhook-Timestamp only (t= left alone)',
    headers: hdr(`t=${T},v1=${s(NEW)}`, T + 1),
    expect: 'SURETY_WEBHOOK_MALFORMED_HEADER',
  }),
  v({
    name: 'tampered Webhook-Id (the body, and so its id, is signed)',
    headers: hdr(`t=${T},v1=${s(NEW)}`, T, 'evt_other'),
    expect: 'SURETY_WEBHOOK_ID_MISMATCH',
  }),
  v({
    name: "no Webhook-Id: the id is the signed body's",
    headers: { 'webhook-timestamp': String(T), 'webhook-signature': `t=${T},v1=${s(NEW)}` },
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'the id not first in the body, written with an escape',
    body: BODY_ID_LATER,
    headers: hdr(`t=${T},v1=${s(NEW, BODY_ID_LATER)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'the id not first in the body, tampered Webhook-Id',
    body: BODY_ID_LATER,
    headers: hdr(`t=${T},v1=${s(NEW, BODY_ID_LATER)}`, T, 'evt_other'),
    expect: 'SURETY_WEBHOOK_ID_MISMATCH',
  }),
  v({
    name: "Webhook-Id a prefix of the body's id",
    headers: hdr(`t=${T},v1=${s(NEW)}`, T, ID.slice(0, -1)),
    expect: 'SURETY_WEBHOOK_ID_MISMATCH',
  }),
  v({
    name: 'a non-ASCII Webhook-Id against an ASCII body id',
    headers: hdr(`t=${T},v1=${s(NEW)}`, T, 'évt_2bRm3nXc8Vd1Kq9Lp0Zy'),
    expect: 'SURETY_WEBHOOK_ID_MISMATCH',
  }),
  v({
    name: 'two top-level ids: the first is the id when the body starts with it',
    body: BODY_TWO_IDS,
    headers: hdr(`t=${T},v1=${s(NEW, BODY_TWO_IDS)}`, T, 'evt_second'),
    expect: 'SURETY_WEBHOOK_ID_MISMATCH',
  }),
  v({
    name: 'a body that starts with a BOM is not a JSON object: Webhook-Id stays unsigned',
    body: BODY_BOM,
    headers: hdr(`t=${T},v1=${s(NEW, BODY_BOM)}`, T, 'evt_other'),
    id: 'evt_other',
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'a nested id only: Webhook-Id stays unsigned',
    body: BODY_NESTED_ID,
    headers: hdr(`t=${T},v1=${s(NEW, BODY_NESTED_ID)}`, T, 'evt_other'),
    id: 'evt_other',
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'rotation: signed with new and old, receiver has both',
    signingSecrets: [NEW, OLD],
    verifySecrets: [NEW, OLD],
    headers: hdr(`t=${T},v1=${s(NEW)},v1=${s(OLD)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'rotation: signed with new and old, receiver still has only the old',
    signingSecrets: [NEW, OLD],
    verifySecrets: [OLD],
    headers: hdr(`t=${T},v1=${s(NEW)},v1=${s(OLD)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'rotation: sender still signs with the old only, receiver lists new then old',
    signingSecrets: [OLD],
    verifySecrets: [NEW, OLD],
    headers: hdr(`t=${T},v1=${s(OLD)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 1,
  }),
  v({
    name: 'rotation over: signed with the new only, receiver has only the old',
    signingSecrets: [NEW],
    verifySecrets: [OLD],
    headers: valid,
    signed: true,
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({ name: 'skew: 300 s old is accepted', headers: valid, now: T + 300, expect: 'valid', secretIndex: 0 }),
  v({ name: 'skew: 300 s ahead is accepted', headers: valid, now: T - 300, expect: 'valid', secretIndex: 0 }),
  v({ name: 'skew: 301 s old', headers: valid, now: T + 301, expect: 'SURETY_WEBHOOK_TIMESTAMP_TOO_OLD' }),
  v({ name: 'skew: 301 s ahead', headers: valid, now: T - 301, expect: 'SURETY_WEBHOOK_TIMESTAMP_TOO_NEW' }),
  v({
    name: 'skew: 301 s old with a tolerance of 600',
    headers: valid,
    now: T + 301,
    toleranceSeconds: 600,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({ name: 't= not first', headers: hdr(`v1=${s(NEW)},t=${T}`), expect: 'valid', secretIndex: 0 }),
  v({
    name: 'spaces around entries',
    headers: hdr(` t=${T} , v1=${s(NEW)} `),
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'duplicate entries: the same v1 three times and t twice',
    headers: hdr(`t=${T},v1=${s(NEW)},t=${T},v1=${s(NEW)},v1=${s(NEW)}`),
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'duplicate entries: two different t=',
    headers: hdr(`t=${T},t=${T + 1},v1=${s(NEW)}`),
    expect: 'SURETY_WEBHOOK_MALFORMED_HEADER',
  }),
  v({
    name: 'junk entries around a valid v1',
    headers: hdr(`,,garbage,t=${T},=x,v0=deadbeef,v1=not-hex,v1=abcd,v2=${s(NEW)},v1=${s(NEW)},foo=bar`),
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'junk only: v1 entries that are not a MAC',
    headers: hdr(`t=${T},v1=zz,v1=,v1=${s(NEW).slice(0, 62)}`),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'upper-case hex is accepted',
    headers: hdr(`t=${T},v1=${s(NEW).toUpperCase()}`),
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'empty body',
    body: '',
    headers: hdr(`t=${T},v1=${s(NEW, '')}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'empty body, delivered with a body',
    body: '{}',
    headers: hdr(`t=${T},v1=${s(NEW, '')}`),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'non-ASCII body (UTF-8)',
    body: '{"note":"café ☕ 日本"}',
    headers: hdr(`t=${T},v1=${s(NEW, '{"note":"café ☕ 日本"}')}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'secret given as raw bytes (hex in vector)',
    signingSecrets: [{ hex: '00ff10ab' }],
    verifySecrets: [{ hex: '00ff10ab' }],
    headers: hdr(
      `t=${T},v1=${createHmac('sha256', Buffer.from('00ff10ab', 'hex')).update(`${T}.${BODY}`).digest('hex')}`,
    ),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'missing Webhook-Signature',
    headers: { 'webhook-id': ID, 'webhook-timestamp': String(T) },
    expect: 'SURETY_WEBHOOK_MISSING_HEADER',
  }),
  v({ name: 'no t=', headers: hdr(`v1=${s(NEW)}`), expect: 'SURETY_WEBHOOK_MALFORMED_HEADER' }),
  v({ name: 'no v1=', headers: hdr(`t=${T},v0=${s(NEW)}`), expect: 'SURETY_WEBHOOK_MALFORMED_HEADER' }),
  v({
    name: 't= not a number',
    headers: { 'webhook-id': ID, 'webhook-signature': `t=17e8,v1=${s(NEW)}` },
    expect: 'SURETY_WEBHOOK_BAD_TIMESTAMP',
  }),
  v({
    name: 't= in milliseconds',
    headers: { 'webhook-id': ID, 'webhook-signature': `t=${T}000,v1=${s(NEW)}` },
    expect: 'SURETY_WEBHOOK_BAD_TIMESTAMP',
  }),
  v({ name: 'bad secret: empty', headers: valid, verifySecrets: [''], expect: 'SURETY_WEBHOOK_BAD_SECRET' }),
  v({ name: 'bad secret: none', headers: valid, verifySecrets: [], expect: 'SURETY_WEBHOOK_BAD_SECRET' }),
  v({
    name: 'bad secret: an Ed25519 key for the Surety scheme',
    format: 'surety',
    headers: valid,
    verifySecrets: [PUBLIC],
    expect: 'SURETY_WEBHOOK_BAD_SECRET',
  }),

  // Standard Webhooks, our own cases (the published vectors are in standard-webhooks.json).
  v({
    name: 'standard: valid',
    format: 'standard',
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'standard: secret without the whsec_ prefix',
    format: 'standard',
    verifySecrets: [NEW.slice('whsec_'.length)],
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`),
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'standard: tampered webhook-id',
    format: 'standard',
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`, T, 'evt_other'),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'standard: tampered body',
    format: 'standard',
    body: BODY.replace('ord_42', 'ord_43'),
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'standard: rotation, two v1 and one v1a, receiver has the old secret',
    format: 'standard',
    signingSecrets: [NEW, OLD, `whsk_${SEED}`],
    verifySecrets: [OLD],
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)} v1,${standard(OLD, ID, T, BODY)} v1a,${ed(ID, T, BODY)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'standard: v1a verified with the whpk_ public key',
    format: 'standard',
    signingSecrets: [`whsk_${SEED}`],
    verifySecrets: [PUBLIC],
    headers: hdr(`v1a,${ed(ID, T, BODY)}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'standard: v1a with a tampered body',
    format: 'standard',
    body: `${BODY} `,
    verifySecrets: [PUBLIC],
    headers: hdr(`v1a,${ed(ID, T, BODY)}`),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'standard: junk and unknown versions around a valid v1',
    format: 'standard',
    headers: hdr(
      `garbage v2,abc v1, v1,!!! v1a,AAAA v1,${standard(NEW, ID, T, BODY)} v1,${standard(NEW, ID, T, BODY)}`,
    ),
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'standard: unknown versions only',
    format: 'standard',
    headers: hdr(`v2,${standard(NEW, ID, T, BODY)}`),
    expect: 'SURETY_WEBHOOK_NO_MATCHING_SIGNATURE',
  }),
  v({
    name: 'standard: no entry at all',
    format: 'standard',
    headers: hdr('nonsense'),
    expect: 'SURETY_WEBHOOK_MALFORMED_HEADER',
  }),
  v({
    name: 'standard: missing webhook-id',
    format: 'standard',
    headers: { 'webhook-timestamp': String(T), 'webhook-signature': `v1,${standard(NEW, ID, T, BODY)}` },
    expect: 'SURETY_WEBHOOK_MISSING_HEADER',
  }),
  v({
    name: 'standard: missing webhook-timestamp',
    format: 'standard',
    headers: { 'webhook-id': ID, 'webhook-signature': `v1,${standard(NEW, ID, T, BODY)}` },
    expect: 'SURETY_WEBHOOK_MISSING_HEADER',
  }),
  v({
    name: 'standard: webhook-timestamp not a number',
    format: 'standard',
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`, 'hello'),
    expect: 'SURETY_WEBHOOK_BAD_TIMESTAMP',
  }),
  v({
    name: 'standard: 301 s old',
    format: 'standard',
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`),
    now: T + 301,
    expect: 'SURETY_WEBHOOK_TIMESTAMP_TOO_OLD',
  }),
  v({
    name: 'standard: 301 s ahead',
    format: 'standard',
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`),
    now: T - 301,
    expect: 'SURETY_WEBHOOK_TIMESTAMP_TOO_NEW',
  }),
  v({
    name: 'standard: empty body',
    format: 'standard',
    body: '',
    headers: hdr(`v1,${standard(NEW, ID, T, '')}`),
    signed: true,
    expect: 'valid',
    secretIndex: 0,
  }),
  v({
    name: 'standard: bad secret (not base64)',
    format: 'standard',
    headers: hdr(`v1,${standard(NEW, ID, T, BODY)}`),
    verifySecrets: ['whsec_not base64!'],
    expect: 'SURETY_WEBHOOK_BAD_SECRET',
  }),
];

const out = new URL('./surety.json', import.meta.url);
writeFileSync(out, `${JSON.stringify({ generatedBy: 'generate.mjs', vectors }, null, 2)}\n`);
console.log(`wrote ${vectors.length} vectors to ${out.pathname}`);
