import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth and no insignificant whitespace, so that two bodies
 * that mean the same thing produce the same bytes (`{"b":1, "a":2}` and `{"a":2,"b":1}`).
 * Iterative, not recursive: a request body nested a few thousand levels deep (`[[[[…]]]]`, which
 * JSON.parse accepts) would otherwise overflow the call stack, and the request answer a 500.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work items, taken from the end: a value still to write, or text to emit as it is.
  const stack: Array<string | { value: unknown }> = [{ value }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.value;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      stack.push(']');
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] === undefined ? null : v[i] });
        if (i > 0) stack.push(',');
      }
      stack.push('[');
    } else {
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record)
        .sort()
        .filter((k) => record[k] !== undefined && typeof record[k] !== 'function');
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: record[keys[i]!] });
        stack.push(`${JSON.stringify(keys[i])}:`);
        if (i > 0) stack.push(',');
      }
      stack.push('{');
    }
  }
  return out.join('');
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
