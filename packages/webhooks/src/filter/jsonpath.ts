// A parsed filter as one SQL/JSON path predicate, stored beside the filter (column filter_path)
// and evaluated by PostgreSQL in the publishing statement: jsonb_path_match(envelope, filter_path).
//
// Every comparison is written as `exists(PATH ? (@ == v))`, never as `PATH == v`: a jsonpath
// comparison of values of different types is `unknown`, and `!unknown` stays unknown, so `$ne` and
// `$nin` would not match a field of another type. `exists(...)` is always true or false, so the
// predicate is plain two-valued logic, which evaluate.ts mirrors exactly. Lax mode (the default)
// unwraps arrays one level at each step: `data.tags == "x"` matches a tags array holding "x".
import type { FilterLiteral, FilterNode } from './parse.js';

/** A string or key as a jsonpath string literal (JSON's escapes are jsonpath's). */
const quote = (s: string) => JSON.stringify(s);

const literal = (v: FilterLiteral): string =>
  v === null ? 'null' : typeof v === 'string' ? quote(v) : typeof v === 'number' ? number(v) : String(v);

/** A finite number as jsonpath writes it: JSON's form, `-` as a unary minus in parentheses. */
function number(v: number): string {
  const text = JSON.stringify(Object.is(v, -0) ? 0 : v);
  return v < 0 ? `(${text})` : text;
}

const path = (segments: string[]) => `$${segments.map((s) => `.${quote(s)}`).join('')}`;

const OPS = { eq: '==', ne: '==', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** The filter as a jsonpath predicate over `{ "type": …, "resource": …, "data": … }`. */
export function compileFilter(node: FilterNode): string {
  switch (node.op) {
    case 'and':
    case 'or':
      return `(${node.of.map(compileFilter).join(node.op === 'and' ? ' && ' : ' || ')})`;
    case 'not':
      return `!(${compileFilter(node.of)})`;
    case 'exists':
      return `${node.exists ? '' : '!'}exists(${path(node.path)})`;
    case 'cmp': {
      const test = `exists(${path(node.path)} ? (@ ${OPS[node.cmp]} ${literal(node.value)}))`;
      return node.cmp === 'ne' ? `!${test}` : test;
    }
    case 'in': {
      const any = node.values.map((v) => `@ == ${literal(v)}`).join(' || ');
      return `${node.negate ? '!' : ''}exists(${path(node.path)} ? (${any}))`;
    }
  }
}
