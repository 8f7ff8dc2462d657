import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth and no insignificant whitespace, so that two bodies
 * that mean the same thing produce the same bytes (`{"b":1, "a":2}` and `{"a":2,"b":1}`).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  }
  const keys = Object.keys(value as Record<string, unknown>).sort();
  const parts: string[] = [];
  for (const k of keys) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined || typeof v === 'function') continue;
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}

export interface FingerprintInput {
  method: string;
  /** The request target as sent: path and query (`/v1/inventory/sku_1/reservations`). */
  url: string;
  /**
   * The body: parsed JSON (hashed canonically), raw bytes or text (hashed as they are), or
   * undefined for none.
   */
  body?: unknown;
}

/**
 * SHA-256 over the method, the request target and the body. Parsed JSON is hashed in canonical
 * form, so key order and whitespace do not matter; a raw body is hashed byte for byte.
 */
export function fingerprint({ method, url, body }: FingerprintInput): string {
  const hash = createHash('sha256');
  hash.update(method.toUpperCase());
  hash.update('\n');
  hash.update(url);
  hash.update('\n');
  if (body === undefined || body === null) {
    hash.update('-');
  } else if (typeof body === 'string') {
    hash.update('s');
    hash.update(body);
  } else if (body instanceof Uint8Array) {
    hash.update('b');
    hash.update(body);
  } else {
    hash.update('j');
    hash.update(canonicalJson(body));
  }
  return hash.digest('base64url');
}
