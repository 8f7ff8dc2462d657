// What a tenant's JSON Schema must satisfy before ajv compiles it. A tenant writes the schema and
// sends the payloads it checks, and the service validates them on the event loop every tenant
// shares, so a schema must not be able to make validation slow (ajv's "security considerations"
// list the keywords: pattern, patternProperties, uniqueItems, format) or reach outside itself.
import type { EventIssue } from '@surety/events';
import { unsafePattern } from './safe-pattern.js';

/** The one draft: ajv's default class, and AsyncAPI 3.0's default schema format. */
export const JSON_SCHEMA_DRAFT = 'http://json-schema.org/draft-07/schema#';

/** Limits on a tenant's schema. */
export const SCHEMA_LIMITS = {
  /** JSON text of the schema, in bytes. */
  maxBytes: 32_768,
  /** Nesting of objects and arrays in the schema document. */
  maxDepth: 32,
  /** `maxItems` an array with `uniqueItems` must declare (ajv compares items pairwise). */
  maxUniqueItems: 100,
} as const;

// Keywords that would reach outside the schema (`$ref`, `$id` registering it in ajv), switch ajv
// into another mode (`$async`, `$data`), or name another draft (`$schema`, checked below).
const REFUSED_KEYWORDS = new Set(['$ref', '$id', '$async', '$data', '$recursiveRef', '$dynamicRef']);
// Keywords whose value is a map of names to subschemas, or of names to anything: their keys are
// property names, not keywords.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', 'dependencies']);
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required']);

const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The reasons `schema` may not be compiled, as pointers into the request body (`/schema/...`);
 * empty when it may. ajv's own strict compilation runs afterwards and refuses what is not draft-07.
 * @example
 * untrustedSchemaIssues({ type: 'string', pattern: '^(a+)+$' }, '/schema');
 * // [{ path: '/schema/pattern', message: 'pattern refused: a quantifier inside a group' }]
 */
export function untrustedSchemaIssues(schema: unknown, at: string): EventIssue[] {
  const issues: EventIssue[] = [];
  const text = JSON.stringify(schema);
  if (Buffer.byteLength(text) > SCHEMA_LIMITS.maxBytes) {
    return [{ path: at, message: `is larger than ${SCHEMA_LIMITS.maxBytes} bytes` }];
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return [{ path: at, message: 'must be a JSON Schema object' }];
  }
  const walk = (node: unknown, path: string, depth: number, isSchema: boolean): void => {
    if (issues.length >= 20) return;
    if (depth > SCHEMA_LIMITS.maxDepth) {
      issues.push({ path, message: `nests deeper than ${SCHEMA_LIMITS.maxDepth} levels` });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((v, i) => {
        walk(v, `${path}/${i}`, depth + 1, isSchema);
      });
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const o = node as Record<string, unknown>;
    if (isSchema) checkSchemaNode(o, path, depth === 0, issues);
    for (const [k, v] of Object.entries(o)) {
      const child = `${path}/${pointer(k)}`;
      if (!isSchema) walk(v, child, depth + 1, false);
      else if (DATA_KEYWORDS.has(k)) walk(v, child, depth + 1, false);
      else if (SCHEMA_MAPS.has(k) && typeof v === 'object' && v !== null && !Array.isArray(v)) {
        for (const [name, sub] of Object.entries(v)) {
          walk(sub, `${child}/${pointer(name)}`, depth + 2, !Array.isArray(sub));
        }
      } else walk(v, child, depth + 1, true);
    }
  };
  walk(schema, at, 0, true);
  return issues;
}

function checkSchemaNode(o: Record<string, unknown>, path: string, root: boolean, issues: EventIssue[]) {
  for (const k of Object.keys(o)) {
    if (REFUSED_KEYWORDS.has(k)) {
      issues.push({
        path: `${path}/${pointer(k)}`,
        message: `${k} is not allowed: the schema must be self-contained`,
      });
    }
  }
  if (o.$schema !== undefined && !(root && o.$schema === JSON_SCHEMA_DRAFT)) {
    issues.push({
      path: `${path}/$schema`,
      message: `only ${JSON.stringify(JSON_SCHEMA_DRAFT)} (draft-07), at the top, is accepted`,
    });
  }
  if (typeof o.pattern === 'string') {
    const why = unsafePattern(o.pattern);
    if (why) issues.push({ path: `${path}/pattern`, message: `pattern refused: ${why}` });
  }
  const pp = o.patternProperties;
  if (typeof pp === 'object' && pp !== null && !Array.isArray(pp)) {
    for (const key of Object.keys(pp)) {
      const why = unsafePattern(key);
      if (why) {
        issues.push({
          path: `${path}/patternProperties/${pointer(key)}`,
          message: `pattern refused: ${why}`,
        });
      }
    }
  }
  if (o.uniqueItems === true) {
    const max = o.maxItems;
    if (typeof max !== 'number' || max > SCHEMA_LIMITS.maxUniqueItems) {
      issues.push({
        path: `${path}/uniqueItems`,
        message: `uniqueItems needs maxItems of at most ${SCHEMA_LIMITS.maxUniqueItems} (items are compared pairwise)`,
      });
    }
  }
}
