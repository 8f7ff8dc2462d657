import { isObject, type JsonSchema, jsonEqual, pointerSegment } from '../json-schema.js';
import type { ContractChange } from './types.js';

/**
 * Compares two JSON Schemas of data we send. A change is breaking when it fails either rule:
 * 1. every body already sent (and still being retried or replayed, for days) must still match the
 *    new schema: so no new required field, no narrowed enum, no tightened constraint, no type change;
 * 2. a consumer written against the old schema must understand bodies of the new one, given that
 *    consumers ignore unknown fields and unknown enum values (the documented tolerant-reader rule):
 *    so no removed or renamed field, no field that became optional, no type change.
 * Descriptions, titles and examples are ignored. Compositions (allOf/anyOf/oneOf/not, if/then/else)
 * are compared branch by branch when their shape is unchanged, otherwise reported as breaking for a
 * person to review: the checker never claims an unprovable change is safe.
 */
export function diffSchema(
  before: unknown,
  after: unknown,
  path: string,
  out: ContractChange[],
  eventType?: string,
): void {
  const push = (kind: ContractChange['kind'], breaking: boolean, message: string, at = path) =>
    out.push({ kind, breaking, path: at, message, ...(eventType === undefined ? {} : { eventType }) });
  const where = path === '' ? 'the schema' : path;

  if (!isObject(before) || !isObject(after)) {
    if (!jsonEqual(before, after)) push('schema-changed', true, `${where} changed shape; review it by hand`);
    return;
  }
  if (before.$ref !== undefined || after.$ref !== undefined) {
    if (before.$ref !== after.$ref) push('schema-changed', true, `${where}: $ref changed; review it by hand`);
    return;
  }

  const typesBefore = typeSet(before);
  const typesAfter = typeSet(after);
  if (typesBefore !== typesAfter) {
    push('type-changed', true, `${where}: type changed from ${typesBefore} to ${typesAfter}`);
    return; // everything below would be noise
  }

  diffEnum(before, after, where, push);
  diffConstraints(before, after, where, push);
  diffObject(before, after, path, out, push, eventType);

  // Arrays: one schema for every item, or a tuple.
  if (isObject(before.items) && isObject(after.items)) {
    diffSchema(before.items, after.items, `${path}/*`, out, eventType);
  } else if (!jsonEqual(before.items, after.items)) {
    push('schema-changed', true, `${where}: items changed shape; review it by hand`);
  }

  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const b = before[key];
    const a = after[key];
    if (Array.isArray(b) && Array.isArray(a) && a.length === b.length) {
      b.forEach((s, i) => {
        diffSchema(s, a[i], `${path}/${key}/${i}`, out, eventType);
      });
    } else if (!jsonEqual(b, a)) {
      push('schema-changed', true, `${where}: ${key} changed; review it by hand`);
    }
  }
  for (const key of [
    'not',
    'if',
    'then',
    'else',
    'dependencies',
    'patternProperties',
    'propertyNames',
    'contains',
  ]) {
    if (!jsonEqual(before[key], after[key])) {
      push('schema-changed', true, `${where}: ${key} changed; review it by hand`);
    }
  }
  if (after.deprecated === true && before.deprecated !== true) {
    push('deprecated', false, `${where} is now deprecated`);
  }
}

type Push = (kind: ContractChange['kind'], breaking: boolean, message: string, at?: string) => void;

/** The `type` keyword as a canonical string (`"null|string"`), `any` when absent. */
function typeSet(s: JsonSchema): string {
  const t = s.type;
  if (t === undefined) return 'any';
  return (Array.isArray(t) ? [...t] : [t]).map(String).sort().join('|');
}

/** `enum` or `const` as a list of values (a const is an enum of one); undefined when unrestricted. */
function allowed(s: JsonSchema): unknown[] | undefined {
  if (Array.isArray(s.enum)) return s.enum;
  if (Object.hasOwn(s, 'const')) return [s.const];
  return undefined;
}

function diffEnum(before: JsonSchema, after: JsonSchema, where: string, push: Push): void {
  const b = allowed(before);
  const a = allowed(after);
  if (b === undefined && a === undefined) return;
  const show = (vs: unknown[]) => vs.map((v) => JSON.stringify(v)).join(', ');
  if (b === undefined) {
    push('enum-narrowed', true, `${where}: now restricted to ${show(a!)}`);
    return;
  }
  if (a === undefined) {
    push('enum-widened', false, `${where}: no longer restricted to ${show(b)}`);
    return;
  }
  const removed = b.filter((v) => !a.some((x) => jsonEqual(x, v)));
  const added = a.filter((v) => !b.some((x) => jsonEqual(x, v)));
  if (removed.length > 0) push('enum-narrowed', true, `${where}: no longer allows ${show(removed)}`);
  if (added.length > 0) push('enum-widened', false, `${where}: now also allows ${show(added)}`);
}

// Numeric keywords and the direction in which they tighten.
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'] as const;
// Keywords where any new or changed value may reject what was valid (a new regex, a new format).
const OPAQUE = ['pattern', 'format', 'multipleOf', 'contentEncoding', 'contentMediaType'] as const;

function diffConstraints(before: JsonSchema, after: JsonSchema, where: string, push: Push): void {
  const bound = (key: string, tighter: (b: number, a: number) => boolean) => {
    const b = before[key];
    const a = after[key];
    if (b === a) return;
    if (typeof a === 'number' && (typeof b !== 'number' || tighter(b, a))) {
      push(
        'constraint-tightened',
        true,
        `${where}: ${key} ${typeof b === 'number' ? `${b} → ${a}` : `${a} added`}`,
      );
    } else {
      push(
        'constraint-loosened',
        false,
        `${where}: ${key} ${typeof a === 'number' ? `${b} → ${a}` : `${String(b)} removed`}`,
      );
    }
  };
  for (const k of LOWER_BOUNDS) bound(k, (b, a) => a > b);
  for (const k of UPPER_BOUNDS) bound(k, (b, a) => a < b);
  for (const k of OPAQUE) {
    const b = before[k];
    const a = after[k];
    if (jsonEqual(a, b)) continue;
    if (a === undefined) push('constraint-loosened', false, `${where}: ${k} ${JSON.stringify(b)} removed`);
    else if (b === undefined) push('constraint-tightened', true, `${where}: ${k} ${JSON.stringify(a)} added`);
    else
      push(
        'constraint-tightened',
        true,
        `${where}: ${k} changed from ${JSON.stringify(b)} to ${JSON.stringify(a)}`,
      );
  }
  if (after.uniqueItems === true && before.uniqueItems !== true) {
    push('constraint-tightened', true, `${where}: items must now be unique`);
  } else if (before.uniqueItems === true && after.uniqueItems !== true) {
    push('constraint-loosened', false, `${where}: items no longer need to be unique`);
  }
}

const props = (s: JsonSchema): Record<string, unknown> => (isObject(s.properties) ? s.properties : {});
const required = (s: JsonSchema): Set<string> =>
  new Set(Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === 'string') : []);

function diffObject(
  before: JsonSchema,
  after: JsonSchema,
  path: string,
  out: ContractChange[],
  push: Push,
  eventType: string | undefined,
): void {
  const pb = props(before);
  const pa = props(after);
  const rb = required(before);
  const ra = required(after);
  const child = (k: string) => `${path}/${pointerSegment(k)}`;
  let removed = Object.keys(pb).filter((k) => !Object.hasOwn(pa, k));
  let added = Object.keys(pa).filter((k) => !Object.hasOwn(pb, k));

  // A removed field and an added required one with the same schema: report one rename, not two
  // changes. An added optional field is never a rename's other half: adding one is additive in
  // every mode, and pairing it would refuse every later optional field of a removed one's type.
  for (const r of removed) {
    const twin = added.find((x) => ra.has(x) && jsonEqual(stripAnnotations(pb[r]), stripAnnotations(pa[x])));
    if (twin === undefined) continue;
    push('field-renamed', true, `${child(r)} was renamed to ${twin}`, child(r));
    removed = removed.filter((k) => k !== r);
    added = added.filter((k) => k !== twin);
  }
  for (const r of removed) push('field-removed', true, `${child(r)} was removed`, child(r));
  for (const k of added) {
    if (ra.has(k)) {
      push(
        'required-field-added',
        true,
        `${child(k)} was added as required: events already sent lack it`,
        child(k),
      );
    } else {
      push('optional-field-added', false, `${child(k)} was added (optional)`, child(k));
    }
  }
  for (const k of Object.keys(pb)) {
    if (!Object.hasOwn(pa, k)) continue;
    if (!rb.has(k) && ra.has(k)) {
      push(
        'field-now-required',
        true,
        `${child(k)} became required: events already sent may lack it`,
        child(k),
      );
    } else if (rb.has(k) && !ra.has(k)) {
      push(
        'field-now-optional',
        true,
        `${child(k)} became optional: consumers may rely on it being present`,
        child(k),
      );
    }
    diffSchema(pb[k], pa[k], child(k), out, eventType);
  }
  // Required names without a property schema (rare, but legal).
  for (const k of ra) {
    if (!rb.has(k) && !Object.hasOwn(pa, k))
      push('field-now-required', true, `${child(k)} became required`, child(k));
  }

  // additionalProperties: a schema for map values (`metadata`), or true/false/absent.
  const ab = before.additionalProperties;
  const aa = after.additionalProperties;
  if (isObject(ab) && isObject(aa)) {
    diffSchema(ab, aa, `${path}/*`, out, eventType);
  } else if (!jsonEqual(ab, aa)) {
    const open = (v: unknown) => v === undefined || v === true;
    if (open(ab) && open(aa)) return;
    if (aa === false || (isObject(aa) && open(ab))) {
      push('constraint-tightened', true, `${path || 'the object'}: extra properties are now restricted`);
    } else {
      push('constraint-loosened', false, `${path || 'the object'}: extra properties are now allowed`);
    }
  }
}

const ANNOTATIONS = new Set([
  'description',
  'title',
  'examples',
  'example',
  '$comment',
  'deprecated',
  'default',
]);

/** A schema without its annotations, to recognise a renamed field whose description changed too. */
function stripAnnotations(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(stripAnnotations);
  if (!isObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (ANNOTATIONS.has(k)) continue;
    // Under these keywords the keys are field names, not keywords: keep them all.
    out[k] =
      (k === 'properties' || k === 'patternProperties' || k === 'definitions') && isObject(v)
        ? Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, stripAnnotations(sub)]))
        : stripAnnotations(v);
  }
  return out;
}
