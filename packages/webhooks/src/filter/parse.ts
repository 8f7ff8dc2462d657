// The endpoint filter language (docs/webhooks.md "Payload filters"): a bounded, MongoDB-like
// subset over the event's envelope ({ type, resource, data }). Parsing checks every limit and
// returns the filter as a tree of nodes the compiler (jsonpath.ts) and the evaluator (evaluate.ts)
// share, so what is stored is what was checked.
import { findUnstorable } from '@surety/db';
import { InvalidFilterError } from '../errors.js';

/** A value a condition compares with: JSON scalars only (objects and arrays are not comparable). */
export type FilterLiteral = string | number | boolean | null;

/** The fields a path may start with: the envelope's `type` and `resource`, and the payload `data`. */
export const FILTER_ROOTS: readonly string[] = ['type', 'resource', 'data'];

/** The filter's bounds: a filter past any of them is refused (InvalidFilterError) when it is set. */
export const FILTER_LIMITS = Object.freeze({
  /** Nesting of `$and`, `$or`, `$not` and condition objects. */
  depth: 6,
  /** Keys of one object, items of one `$and`/`$or`/`$in`/`$nin` array. */
  width: 50,
  /** Conditions, operators, and `$in`/`$nin` values, counted together. */
  nodes: 200,
  /** Characters of one string literal. */
  stringLength: 256,
  /** Segments of one path (`data.customer.address.country` has 4). */
  pathSegments: 8,
  /** Characters of one path segment. */
  segmentLength: 64,
  /** The filter's JSON text, in bytes. */
  bytes: 16_384,
});

export type Comparison = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';

export type FilterNode =
  | { op: 'and' | 'or'; of: FilterNode[] }
  | { op: 'not'; of: FilterNode }
  | { op: 'cmp'; path: string[]; cmp: Comparison; value: FilterLiteral }
  | { op: 'in'; path: string[]; values: FilterLiteral[]; negate: boolean }
  | { op: 'exists'; path: string[]; exists: boolean };

const COMPARISONS: Record<string, Comparison> = {
  $eq: 'eq',
  $ne: 'ne',
  $gt: 'gt',
  $gte: 'gte',
  $lt: 'lt',
  $lte: 'lte',
};

type Problem = { path: string; message: string };

class Parser {
  nodes = 0;
  readonly problems: Problem[] = [];

  fail(at: string, message: string): never {
    this.problems.push({ path: `/filter${at}`, message });
    throw this;
  }

  count(at: string, n = 1): void {
    this.nodes += n;
    if (this.nodes > FILTER_LIMITS.nodes) {
      this.fail(at, `more than ${FILTER_LIMITS.nodes} conditions, operators and values`);
    }
  }

  entries(value: unknown, at: string, depth: number): [string, unknown][] {
    if (depth > FILTER_LIMITS.depth) this.fail(at, `nested more than ${FILTER_LIMITS.depth} levels deep`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(at, 'must be an object');
    }
    const entries = Object.entries(value);
    if (entries.length === 0) this.fail(at, 'must not be empty');
    if (entries.length > FILTER_LIMITS.width) this.fail(at, `more than ${FILTER_LIMITS.width} keys`);
    return entries;
  }

  list(value: unknown, at: string, op: string): unknown[] {
    if (!Array.isArray(value)) this.fail(at, `${op} takes an array`);
    if (value.length === 0) this.fail(at, `${op} takes at least one item`);
    if (value.length > FILTER_LIMITS.width) this.fail(at, `${op} takes at most ${FILTER_LIMITS.width} items`);
    return value;
  }

  /** A filter object: its keys are paths or `$and`/`$or`/`$not`, all of which must hold. */
  filter(value: unknown, at: string, depth: number): FilterNode {
    const of: FilterNode[] = [];
    for (const [key, inner] of this.entries(value, at, depth)) {
      const here = `${at}/${pointer(key)}`;
      if (key === '$and' || key === '$or') {
        this.count(here);
        const items = this.list(inner, here, key);
        of.push({
          op: key === '$and' ? 'and' : 'or',
          of: items.map((item, i) => this.filter(item, `${here}/${i}`, depth + 1)),
        });
      } else if (key === '$not') {
        this.count(here);
        of.push({ op: 'not', of: this.filter(inner, here, depth + 1) });
      } else if (key.startsWith('$')) {
        this.fail(here, `unknown operator ${key} (a filter object takes paths, $and, $or, $not)`);
      } else {
        of.push(this.condition(this.path(key, here), inner, here, depth + 1));
      }
    }
    return of.length === 1 ? of[0]! : { op: 'and', of };
  }

  path(key: string, at: string): string[] {
    const segments = key.split('.');
    if (!FILTER_ROOTS.includes(segments[0]!)) {
      this.fail(at, `a path starts with ${FILTER_ROOTS.join(', ')} (data.amount, not amount)`);
    }
    if (segments.length > FILTER_LIMITS.pathSegments) {
      this.fail(at, `a path has at most ${FILTER_LIMITS.pathSegments} segments`);
    }
    if (segments[0] !== 'data' && segments.length > 1) this.fail(at, `${segments[0]} has no fields`);
    for (const s of segments) {
      if (s.length === 0) this.fail(at, 'a path has no empty segment');
      if (s.length > FILTER_LIMITS.segmentLength) {
        this.fail(at, `a path segment has at most ${FILTER_LIMITS.segmentLength} characters`);
      }
      if (!storable(s)) this.fail(at, 'a path has no NUL or unpaired surrogate');
    }
    return segments;
  }

  /** A path's condition: a literal (equality) or an object of operators, all of which must hold. */
  condition(path: string[], value: unknown, at: string, depth: number): FilterNode {
    if (typeof value !== 'object' || value === null) {
      this.count(at);
      return { op: 'cmp', path, cmp: 'eq', value: this.literal(value, at) };
    }
    if (Array.isArray(value)) this.fail(at, 'compare with $in to match one of several values');
    const of: FilterNode[] = [];
    for (const [key, inner] of this.entries(value, at, depth)) {
      const here = `${at}/${pointer(key)}`;
      this.count(here);
      const cmp = COMPARISONS[key];
      if (cmp !== undefined) {
        const literal = this.literal(inner, here);
        if (cmp !== 'eq' && cmp !== 'ne' && typeof literal !== 'number') {
          this.fail(here, `${key} compares numbers only`);
        }
        of.push({ op: 'cmp', path, cmp, value: literal });
      } else if (key === '$in' || key === '$nin') {
        const items = this.list(inner, here, key);
        this.count(here, items.length);
        of.push({
          op: 'in',
          path,
          values: items.map((item, i) => this.literal(item, `${here}/${i}`)),
          negate: key === '$nin',
        });
      } else if (key === '$exists') {
        if (typeof inner !== 'boolean') this.fail(here, '$exists takes true or false');
        of.push({ op: 'exists', path, exists: inner });
      } else if (key === '$not') {
        of.push({ op: 'not', of: this.condition(path, inner, here, depth + 1) });
      } else {
        this.fail(
          here,
          key.startsWith('$')
            ? `unknown operator ${key} ($eq $ne $gt $gte $lt $lte $in $nin $exists $not)`
            : 'objects are not comparable: name the field in the path (data.a.b), or use operators',
        );
      }
    }
    return of.length === 1 ? of[0]! : { op: 'and', of };
  }

  literal(value: unknown, at: string): FilterLiteral {
    if (value === null || typeof value === 'boolean') return value;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) this.fail(at, 'numbers are finite');
      return value;
    }
    if (typeof value === 'string') {
      if (value.length > FILTER_LIMITS.stringLength) {
        this.fail(at, `strings have at most ${FILTER_LIMITS.stringLength} characters`);
      }
      if (!storable(value)) this.fail(at, 'strings have no NUL or unpaired surrogate');
      return value;
    }
    return this.fail(at, 'compare with a string, number, boolean or null');
  }
}

const pointer = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
const storable = (s: string) => findUnstorable(s) === undefined;

/**
 * Checks a filter against the language and its limits (FILTER_LIMITS) and returns its tree.
 * Throws InvalidFilterError naming where (`/filter/...` JSON pointers) and why.
 */
export function parseFilter(filter: unknown): FilterNode {
  // The walk first: it stops at the first bound passed, so a filter nested ten thousand deep costs
  // six levels; then the size of what passed (at most FILTER_LIMITS.nodes literals).
  const parser = new Parser();
  let node: FilterNode;
  try {
    node = parser.filter(filter, '', 1);
  } catch (error) {
    if (error !== parser) throw error;
    const [first] = parser.problems;
    throw new InvalidFilterError(`${first!.path}: ${first!.message}`, parser.problems);
  }
  if (Buffer.byteLength(JSON.stringify(filter)) > FILTER_LIMITS.bytes) {
    throw new InvalidFilterError(`the filter is larger than ${FILTER_LIMITS.bytes} bytes`, [
      { path: '/filter', message: `larger than ${FILTER_LIMITS.bytes} bytes` },
    ]);
  }
  return node;
}
