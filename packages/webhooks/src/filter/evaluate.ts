// The filter evaluated in JavaScript, with the semantics of its jsonpath form (jsonpath.ts) as
// PostgreSQL runs it in lax mode: a step into an array looks into each of its objects (one level),
// a comparison looks at each item of an array (two levels: [1, [2]] holds 2), values of different types never compare
// equal, and ordering compares numbers only. Used to explain a filter (testFilter) and to check
// the SQL translation (test/filter-sql.test.ts compares the two on generated filters and documents).
import type { FilterLiteral, FilterNode } from './parse.js';

/** What a filter sees: the envelope's type and resource and the payload. */
export interface FilterDocument {
  type: string;
  resource: string | null;
  data: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The values a path reaches (jsonpath's lax member accessor). */
function select(doc: FilterDocument, segments: string[]): unknown[] {
  let items: unknown[] = [doc];
  for (const key of segments) {
    const next: unknown[] = [];
    for (const item of items) {
      if (isObject(item)) {
        if (Object.hasOwn(item, key)) next.push(item[key]);
      } else if (Array.isArray(item)) {
        for (const element of item)
          if (isObject(element) && Object.hasOwn(element, key)) next.push(element[key]);
      }
    }
    items = next;
  }
  return items;
}

const flat = (values: unknown[]) => values.flatMap((v) => (Array.isArray(v) ? v : [v]));
/**
 * The items a comparison looks at: the filter `? (...)` unwraps an array into its elements, and
 * the comparison `@ == v` unwraps an element that is an array once more (lax mode, both).
 */
const unwrap = (values: unknown[]) => flat(flat(values));

function compare(item: unknown, op: FilterNode & { op: 'cmp' }): boolean {
  const v = op.value;
  switch (op.cmp) {
    case 'eq':
    case 'ne':
      return equal(item, v);
    case 'gt':
      return typeof item === 'number' && item > (v as number);
    case 'gte':
      return typeof item === 'number' && item >= (v as number);
    case 'lt':
      return typeof item === 'number' && item < (v as number);
    case 'lte':
      return typeof item === 'number' && item <= (v as number);
  }
}

/** Scalars of one type that are equal; an object or an array equals nothing. */
const equal = (item: unknown, v: FilterLiteral) => item === v && (item === null || typeof item !== 'object');

/** Whether the document passes the filter. */
export function evaluateFilter(node: FilterNode, doc: FilterDocument): boolean {
  switch (node.op) {
    case 'and':
      return node.of.every((n) => evaluateFilter(n, doc));
    case 'or':
      return node.of.some((n) => evaluateFilter(n, doc));
    case 'not':
      return !evaluateFilter(node.of, doc);
    case 'exists':
      return select(doc, node.path).length > 0 === node.exists;
    case 'cmp': {
      const found = unwrap(select(doc, node.path)).some((item) => compare(item, node));
      return node.cmp === 'ne' ? !found : found;
    }
    case 'in': {
      const found = unwrap(select(doc, node.path)).some((item) => node.values.some((v) => equal(item, v)));
      return node.negate ? !found : found;
    }
  }
}
