// An endpoint filter checked against its event types' JSON Schemas (issue 37): every path must be
// one a subscribed type can have, and every value one that path can hold. A path the schemas
// cannot decide (a $ref, patternProperties, an open object, a type without a schema, `*`) passes:
// the check refuses only what is certain never to match, a typo (`data.amont`) or a wrong type
// (`"data.amount": "100"` where amount is an integer).
import type { JsonSchema } from '@surety/events';
import { type FilterLiteral, type FilterNode, InvalidFilterError } from '@surety/webhooks';

/** What a path reaches in one type's schema: the schemas found there, or `any` when it cannot tell. */
type Reach = JsonSchema[] | 'any';

const isSchema = (s: unknown): s is JsonSchema => typeof s === 'object' && s !== null && !Array.isArray(s);
const typesOf = (s: JsonSchema): string[] | undefined =>
  s.type === undefined ? undefined : ([] as string[]).concat(s.type as string | string[]);

/** The schemas (or `any`) one step `key` reaches from `s`, arrays looked through (jsonpath's lax mode). */
function step(s: JsonSchema, key: string): Reach {
  if (s.$ref !== undefined || s.patternProperties !== undefined || s.if !== undefined) return 'any';
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = s[k];
    if (Array.isArray(branches)) return union(branches.map((b) => (isSchema(b) ? step(b, key) : 'any')));
  }
  const types = typesOf(s);
  const out: Reach[] = [];
  if ((types === undefined || types.includes('array')) && isSchema(s.items)) out.push(step(s.items, key));
  if (types === undefined || types.includes('object')) {
    const props = isSchema(s.properties) ? (s.properties as Record<string, unknown>) : undefined;
    const extra = s.additionalProperties;
    const own = props && Object.hasOwn(props, key) ? props[key] : undefined;
    if (own !== undefined) out.push(isSchema(own) ? [own] : 'any');
    else if (isSchema(extra)) out.push([extra]);
    // The registries validate objects with `properties` and no `additionalProperties` as closed.
    else if (extra === true || (props === undefined && extra === undefined)) out.push('any');
  }
  if (types === undefined && out.length === 0 && !isSchema(s.properties) && s.items === undefined)
    return 'any';
  return union(out);
}

const union = (reaches: Reach[]): Reach =>
  reaches.includes('any') ? 'any' : (reaches as JsonSchema[][]).flat();

function reach(schema: JsonSchema, segments: string[]): Reach {
  let at: Reach = [schema];
  for (const key of segments) {
    if (at === 'any') return 'any';
    at = union(at.map((s) => step(s, key)));
  }
  return at;
}

const kindOf = (v: FilterLiteral) => (v === null ? 'null' : typeof v);

/**
 * Whether a schema (or, through arrays, its items) admits the literal; `ordered`: the literal is
 * the bound of `$gt`…`$lte`, so any number type admits it whatever its const, enum or integer-ness.
 */
function admits(s: JsonSchema, v: FilterLiteral, ordered: boolean, depth = 0): boolean {
  if (depth > 4 || s.$ref !== undefined) return true;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const branches = s[k];
    if (Array.isArray(branches))
      return branches.some((b) => !isSchema(b) || admits(b, v, ordered, depth + 1));
  }
  if (Array.isArray(s.allOf) && !s.allOf.every((b) => !isSchema(b) || admits(b, v, ordered, depth + 1)))
    return false;
  const types = typesOf(s);
  if (types?.includes('array') && isSchema(s.items) && admits(s.items, v, ordered, depth + 1)) return true;
  if (types !== undefined) {
    const kind = kindOf(v);
    const ok =
      types.includes(kind) ||
      (kind === 'number' && types.includes('integer') && (ordered || Number.isInteger(v)));
    if (!ok) return false;
  }
  if (ordered) return true;
  if ('const' in s && s.const !== v) return false;
  if (Array.isArray(s.enum) && !s.enum.includes(v)) return false;
  return true;
}

/** Each (path, values it is compared with) of the filter, `$exists` with no values. */
function* uses(node: FilterNode): Generator<{ path: string[]; values: FilterLiteral[]; numeric: boolean }> {
  switch (node.op) {
    case 'and':
    case 'or':
      for (const n of node.of) yield* uses(n);
      return;
    case 'not':
      yield* uses(node.of);
      return;
    case 'exists':
      yield { path: node.path, values: [], numeric: false };
      return;
    case 'cmp':
      yield { path: node.path, values: [node.value], numeric: node.cmp !== 'eq' && node.cmp !== 'ne' };
      return;
    case 'in':
      yield { path: node.path, values: node.values, numeric: false };
  }
}

/**
 * Throws InvalidFilterError when a path of the filter exists in none of the subscribed types'
 * schemas, or a value compared with it is one no schema there admits. `schemaOf` answers a type's
 * payload schema, or undefined when it has none (the check then passes that path).
 */
export function checkFilterSchemas(
  filter: FilterNode,
  eventTypes: readonly string[],
  schemaOf: (type: string) => JsonSchema | undefined,
): void {
  if (eventTypes.includes('*')) return;
  const schemas = eventTypes.map(schemaOf);
  if (schemas.some((s) => s === undefined)) return;
  const errors: { path: string; message: string }[] = [];
  for (const use of uses(filter)) {
    const [root, ...rest] = use.path;
    const where = `/filter/${use.path.join('.')}`;
    if (root === 'type') {
      const bad = use.values.filter((v) => typeof v !== 'string' || !eventTypes.includes(v));
      if (bad.length > 0) {
        errors.push({
          path: where,
          message: `the endpoint is not subscribed to ${bad.map((v) => JSON.stringify(v)).join(', ')}`,
        });
      }
      continue;
    }
    if (root !== 'data') continue;
    const reached = schemas.map((s) => reach(s!, rest));
    if (reached.includes('any')) continue;
    const found = (reached as JsonSchema[][]).flat();
    if (found.length === 0) {
      errors.push({ path: where, message: `no field ${use.path.join('.')} in ${eventTypes.join(', ')}` });
      continue;
    }
    const bad = use.values.filter((v) => !found.some((s) => admits(s, v, use.numeric)));
    if (bad.length > 0) {
      errors.push({
        path: where,
        message: `${bad.map((v) => JSON.stringify(v)).join(', ')} is never the value of ${use.path.join('.')} in ${eventTypes.join(', ')}`,
      });
    }
  }
  if (errors.length > 0) throw new InvalidFilterError(`${errors[0]!.path}: ${errors[0]!.message}`, errors);
}
