/**
 * Bounds on a document's structure, checked before Spectral parses it (issue 30, N3): a YAML alias
 * bomb (a kilobyte that expands to gigabytes) and a document nested deeper than any parser's stack
 * are bad input, refused with a message, never a crash or a heap exhausted. The `yaml` package
 * parses (JSON is YAML) with its alias-expansion limit; nesting is measured without recursion.
 */
import { parseDocument } from 'yaml';

/** The deepest nesting of objects and arrays accepted (OpenAPI documents stay under 40). */
export const MAX_DEPTH = 256;
/** Nodes aliases may expand to, as the `yaml` package counts them (its `maxAliasCount`). */
export const MAX_ALIAS_COUNT = 1000;

/** Why the document is refused, or undefined when it is within the bounds. */
export function structureProblem(text: string): string | undefined {
  // A quick upper bound first: brackets outside quoted strings and comments. Exact for JSON; in
  // YAML a bracket inside a plain scalar may count too, so this only refuses far past the bound.
  if (bracketDepth(text) > MAX_DEPTH * 4) return `nests deeper than ${MAX_DEPTH} levels`;
  const doc = parseDocument(text, { uniqueKeys: false });
  if (doc.errors.some((e) => /call stack/i.test(e.message))) return `nests deeper than ${MAX_DEPTH} levels`;
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      return `its YAML aliases expand to more than ${MAX_ALIAS_COUNT} nodes (an alias bomb?)`;
    }
    if (error instanceof RangeError) return `nests deeper than ${MAX_DEPTH} levels`;
    return undefined; // a syntax problem: Spectral's parser reports it as a finding
  }
  return valueDepth(value) > MAX_DEPTH ? `nests deeper than ${MAX_DEPTH} levels` : undefined;
}

/** The deepest nesting of `[` and `{` outside quoted strings and `#` comments, in one pass. */
function bracketDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]!))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if ((c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/** The nesting depth of a parsed value, walked with a stack (no recursion); stops past the bound. */
function valueDepth(root: unknown): number {
  const stack: [unknown, number][] = [[root, 0]];
  let max = 0;
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    max = Math.max(max, depth + 1);
    if (max > MAX_DEPTH) return max;
    const children = node instanceof Map ? [...node.values()] : Object.values(node);
    for (const child of children) stack.push([child, depth + 1]);
  }
  return max;
}
