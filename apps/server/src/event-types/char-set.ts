// Sets of code points, as the safe-pattern check (safe-pattern.ts) needs them: what a character,
// an escape, a class or `.` of a `u` regular expression may match, and whether two such sets share
// a character. Sorted, disjoint, inclusive ranges; the classes as ECMA-262 defines them.

/** A set of code points as sorted, disjoint, inclusive ranges. */
export type CharSet = [number, number][];

const MAX = 0x10ffff;
/** Every code point. */
export const ALL: CharSet = [[0, MAX]];
/** The code points from `a` to `b`. */
export const range = (a: number, b: number): CharSet => [[a, b]];
/** The code points in any of the sets. */
export const union = (...sets: CharSet[]): CharSet => {
  const all = sets.flat().sort((x, y) => x[0] - y[0]);
  const out: CharSet = [];
  for (const [a, b] of all) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
};
/** The code points not in the set. */
export const complement = (s: CharSet): CharSet => {
  const out: CharSet = [];
  let next = 0;
  for (const [a, b] of union(s)) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX) out.push([next, MAX]);
  return out;
};
/** Whether the two sets share a code point. */
export const overlaps = (x: CharSet, y: CharSet): boolean =>
  x.some(([a, b]) => y.some(([c, d]) => a <= d && c <= b));

/** The code point of the first character of `c`. */
export const ch = (c: string) => c.codePointAt(0)!;
/** `\\d`, `\\w`, `\\s` and `.` (without the `s` flag). */
export const DIGIT = range(48, 57);
export const WORD = union(DIGIT, range(65, 90), range(97, 122), range(95, 95));
// ECMA-262 WhiteSpace and LineTerminator.
export const SPACE = union(
  range(9, 13),
  range(32, 32),
  range(0xa0, 0xa0),
  range(0x1680, 0x1680),
  range(0x2000, 0x200a),
  range(0x2028, 0x2029),
  range(0x202f, 0x202f),
  range(0x205f, 0x205f),
  range(0x3000, 0x3000),
  range(0xfeff, 0xfeff),
);
export const DOT = complement(union(range(10, 10), range(13, 13), range(0x2028, 0x2029)));
