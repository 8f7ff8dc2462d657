// The static cost of a tenant's schema (issue 30, N1): an upper bound on the work ajv does to
// validate the largest payload a request can carry, computed at write time in one pass over the
// schema (no compilation, no recursion). A schema over the bound is refused (422
// `schema_too_costly`). The model, per schema node s:
//   apps(s)  — how many data values s can be applied to: 1 at the root; the same as its parent's
//              through `properties`, the branches (`allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/
//              `else`, `dependencies`) and tuple `items`; times the fan-out (`maxItems`,
//              `maxProperties`, or else the most values a body holds) through `items`,
//              `additionalItems`, `contains`, `additionalProperties`, `patternProperties` and
//              `propertyNames`; never more than the most values a body holds.
//   local(s) — the work of its own keywords on one value: 1 per keyword, an `enum` or `const` as
//              large as its values (deep comparisons), `uniqueItems` as maxItems² (pairwise),
//              each `oneOf`/`anyOf` branch an error object made and dropped when it fails, a
//              closed object's check of each key of the value.
// cost = Σ apps(s) × local(s). Every data value is reached by a path of data steps, and a schema
// without `$ref` (refused) is a tree: each node applies at most once to each value, so the sum
// bounds the work whatever the payload. Measured against ajv (the fuzzer in schema-cost.test.ts),
// a unit costs up to ~120 ns on the worst payloads, ~210 ns with tuples, `contains`, `uniqueItems`
// and `patternProperties` on a loaded machine: the bound, 2 M units at the default body limit, is
// under half a second of a schema worker, whose time limit stops it in any case.
import type { EventIssue } from '@surety/events';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Bounds of the model. */
export const COST_LIMITS = {
  /** Units of work per value a body can hold (the cost of a plain `items: {type: integer}` is 2). */
  unitsPerValue: 64,
  /** Subschemas a schema may have: each is compiled into code (ajv), and compiling is paid per node. */
  maxSubschemas: 400,
  /** Units one failing `oneOf`/`anyOf` branch costs beyond its checks (the error object ajv makes). */
  branchError: 8,
} as const;

const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_VALUE = ['not', 'if', 'then', 'else'] as const;
const PER_ELEMENT = ['additionalItems', 'contains'] as const;
const PER_KEY = ['additionalProperties', 'propertyNames'] as const;

/** How many JSON values `v` holds (itself included), walked without recursion. */
export function valueCount(v: unknown): number {
  let n = 0;
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    n++;
    if (Array.isArray(x)) stack.push(...x);
    else if (isObject(x)) stack.push(...Object.values(x));
  }
  return n;
}

/** The model's verdict on a schema, for bodies of at most `maxValues` JSON values. */
export interface SchemaCost {
  /** Units of work to validate the worst payload, an upper bound. */
  units: number;
  /** The most units allowed for such bodies. */
  budget: number;
  subschemas: number;
}

/**
 * The cost of validating any payload of at most `maxValues` values against `schema` (assumed to
 * have passed untrustedSchemaIssues: no `$ref`, bounded size and depth).
 * @example
 * schemaCost({ type: 'array', items: { type: 'integer' } }, 32_768).units; // 98_307
 */
export function schemaCost(schema: unknown, maxValues: number): SchemaCost {
  const cap = (n: number) => Math.min(n, maxValues);
  const fanOut = (s: Record<string, unknown>, key: 'maxItems' | 'maxProperties') =>
    typeof s[key] === 'number' && (s[key] as number) >= 0 ? (s[key] as number) : maxValues;
  let units = 0;
  let subschemas = 0;
  const stack: [unknown, number][] = [[schema, 1]];
  while (stack.length > 0) {
    const [node, apps] = stack.pop()!;
    if (!isObject(node)) continue; // `true`/`false` schemas: a constant
    subschemas++;
    let local = 1 + Object.keys(node).length;
    if (Array.isArray(node.enum)) local += valueCount(node.enum);
    if ('const' in node) local += valueCount(node.const);
    if (Array.isArray(node.required)) local += node.required.length;
    if (node.uniqueItems === true) local += fanOut(node, 'maxItems') ** 2;
    const props = isObject(node.properties) ? node.properties : {};
    local += Object.keys(props).length;
    for (const sub of Object.values(props)) stack.push([sub, apps]);
    for (const k of BRANCHES) {
      if (!Array.isArray(node[k])) continue;
      if (k !== 'allOf') local += node[k].length * COST_LIMITS.branchError;
      for (const sub of node[k]) stack.push([sub, apps]);
    }
    for (const k of SAME_VALUE) if (k in node) stack.push([node[k], apps]);
    if (isObject(node.dependencies)) {
      for (const d of Object.values(node.dependencies)) {
        if (Array.isArray(d)) local += d.length;
        else stack.push([d, apps]);
      }
    }
    const elements = cap(apps * fanOut(node, 'maxItems'));
    const keys = cap(apps * fanOut(node, 'maxProperties'));
    if (Array.isArray(node.items)) for (const sub of node.items) stack.push([sub, apps]);
    else if ('items' in node) stack.push([node.items, elements]);
    for (const k of PER_ELEMENT) if (k in node) stack.push([node[k], elements]);
    for (const k of PER_KEY) if (k in node) stack.push([node[k], keys]);
    if (isObject(node.patternProperties)) {
      for (const sub of Object.values(node.patternProperties)) stack.push([sub, keys]);
    }
    // A closed object (the registry closes every object with `properties`) checks each key.
    if (Object.keys(props).length > 0 || isObject(node.patternProperties)) units += keys * 2;
    units += apps * local;
  }
  return { units, budget: maxValues * COST_LIMITS.unitsPerValue, subschemas };
}

/** The problems the cost model finds with a schema, as pointers into the request body. */
export function costIssues(schema: unknown, maxValues: number, at: string): EventIssue[] {
  const c = schemaCost(schema, maxValues);
  if (c.subschemas > COST_LIMITS.maxSubschemas) {
    return [{ path: at, message: `has ${c.subschemas} subschemas, more than ${COST_LIMITS.maxSubschemas}` }];
  }
  if (c.units > c.budget) {
    return [
      {
        path: at,
        message:
          `validating a payload as large as a request can carry could take ${c.units} units of work, ` +
          `more than ${c.budget}: bound the arrays and maps it applies many subschemas to (maxItems, ` +
          'maxProperties), or use fewer oneOf/anyOf branches or enum values',
      },
    ];
  }
  return [];
}
