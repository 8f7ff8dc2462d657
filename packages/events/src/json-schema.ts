/**
 * A JSON Schema (draft-07, the base of AsyncAPI 3.0's default schema format) as plain data. Kept
 * loose on purpose: schemas come from code and, at runtime, from tenants registering their own types.
 * @example
 * const schema: JsonSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
 */
export type JsonSchema = { [keyword: string]: unknown };

/** A plain object (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A deep copy of JSON data (schemas, samples): the registry never shares objects with its callers. */
export const cloneJson = <T>(v: T): T => structuredClone(v);

/** Structural equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Escapes one JSON pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`). */
export const pointerSegment = (s: string): string => s.replaceAll('~', '~0').replaceAll('/', '~1');
