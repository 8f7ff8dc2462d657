import { createHash } from 'node:crypto';

/** @default 255, as Stripe. */
export const MAX_KEY_LENGTH = 255;
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export type KeyCheck =
  | { kind: 'valid'; ok: true; key: string | undefined }
  | { kind: 'invalid'; ok: false; code: 'idempotency_key_invalid'; detail: string };

/**
 * Validates an `Idempotency-Key` header value: 1–255 visible ASCII characters. `undefined` means
 * the header was not sent (the caller decides whether that is allowed).
 */
export function checkKey(value: string | readonly string[] | undefined): KeyCheck {
  if (value === undefined) return { kind: 'valid', ok: true, key: undefined };
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
