import { createHash } from 'node:crypto';

/** @default 255, as Stripe. */
export const MAX_KEY_LENGTH = 255;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export type KeyCheck =
  | { kind: 'valid'; ok: true; key: string | undefined }
  | { kind: 'invalid'; ok: false; code: 'idempotency_key_invalid'; detail: string };

/**
 * The value of an RFC 8941 sf-string (`"k"` → `k`, with `\"` and `\\` unescaped), or undefined when
 * `raw` is not one (a bare key, or quotes around something RFC 8941 does not allow).
 */
function sfStringValue(raw: string): string | undefined {
  if (raw.length < 2 || !raw.startsWith('"') || !raw.endsWith('"')) return undefined;
  let out = '';
  for (let i = 1; i < raw.length - 1; i++) {
    const c = raw[i]!;
    if (c === '"') return undefined;
    if (c === '\\') {
      const next = raw[++i];
      if (next !== '"' && next !== '\\') return undefined;
      out += next;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * The key in the RFC 8941 string form (`k` → `"k"`): the form in which a key sent quoted was stored
 * before quoted and bare keys became one key, so that such a row is still found (see `formerKeys`).
 */
export function quotedKey(key: string): string {
  return `"${key.replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * Validates an `Idempotency-Key` header value and gives the key it names. The draft defines the
 * header as an RFC 8941 string (`Idempotency-Key: "8e03978e-…"`) and most clients send the key bare
 * (`Idempotency-Key: 8e03978e-…`): both are the same key, `8e03978e-…`. A value that is not an RFC
 * 8941 string is the key as it is. The key is 1–255 visible ASCII characters. `undefined` means the
 * header was not sent (the caller decides whether that is allowed).
 * @example checkKey('"k"') // { kind: 'valid', ok: true, key: 'k' }, as checkKey('k')
 */
export function checkKey(value: string | readonly string[] | undefined): KeyCheck {
  if (value === undefined) return { kind: 'valid', ok: true, key: undefined };
  if (typeof value === 'string' && VISIBLE_ASCII.test(value)) {
    const unquoted = sfStringValue(value);
    if (unquoted !== undefined) return checkBare(unquoted);
  }
  return checkBare(value);
}

function checkBare(value: string | readonly string[]): KeyCheck {
  if (typeof value !== 'string') {
    return {
      kind: 'invalid',
      ok: false,
      code: 'idempotency_key_invalid',
      detail: 'send exactly one Idempotency-Key header',
    };
  }
  if (value.length === 0) {
    return {
      kind: 'invalid',
      ok: false,
      code: 'idempotency_key_invalid',
      detail: 'the Idempotency-Key header is empty',
    };
  }
  if (value.length > MAX_KEY_LENGTH) {
    return {
      kind: 'invalid',
      ok: false,
      code: 'idempotency_key_invalid',
      detail: `the Idempotency-Key is ${value.length} characters long; at most ${MAX_KEY_LENGTH} are allowed`,
    };
  }
  if (!VISIBLE_ASCII.test(value)) {
    return {
      kind: 'invalid',
      ok: false,
      code: 'idempotency_key_invalid',
      detail:
        'the Idempotency-Key may contain only visible ASCII characters (no spaces or control characters)',
    };
  }
  return { kind: 'valid', ok: true, key: value };
}

/**
 * The key to send downstream for one step of an operation, derived from the caller's key, so that a
 * retried request sends the same downstream key again and the downstream system deduplicates it.
 * @example
 * await psp.charge({ amount }, { idempotencyKey: deriveKey(key, 'charge') });
 */
export function deriveKey(key: string, step: string): string {
  return createHash('sha256').update(key).update('\0').update(step).digest('base64url');
}
