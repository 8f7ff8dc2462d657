// Which `pattern`s a tenant's schema may carry. ajv runs patterns on V8's backtracking engine, and
// a tenant both writes the schema and sends the payloads it checks: measured on this machine with
// a 64 KB string (the body limit), `a*b` took 12 s, `^\s*\s*$` 7 s and `.*a.*b` over 4 minutes on
// 8 KB. No linear-time engine is available: node_modules has no re2, and V8's experimental one
// (the `l` flag, behind a V8 flag) refuses the `u` flag and counted repetitions such as `{1,64}`.
// So a pattern is accepted only in a subset that backtracks at most a constant number of steps
// per character (docs/event-types.md, docs/decisions.md):
// 1. anchored: it starts with `^` and has no `|` outside a group (an unanchored pattern is retried
//    at every position of the string, quadratic even for `a*b`);
// 2. quantifiers (`*`, `+`, `?`, `{n,m}` with m ≤ 1000) apply to one character, class, escape or
//    `.`, never to a group (no nested quantifiers, no quantified alternation);
// 3. a group holds alternatives of single characters or classes in sequence, unquantified, whose
//    first characters differ (at most one alternative can match at any place);
// 4. after a quantifier that can match a varying number of characters, each following item up to
//    and including the first one that must match something starts with characters the quantified
//    one cannot match (so the quantifier can end at one place only);
// 5. no backreferences, no lookahead or lookbehind; at most 256 characters.

import {
  ALL,
  type CharSet,
  ch,
  complement,
  DIGIT,
  DOT,
  overlaps,
  range,
  SPACE,
  union,
  WORD,
} from './char-set.js';

/** One item of a sequence: what its first character may be, what any of its characters may be. */
interface Item {
  first: CharSet;
  chars: CharSet;
  min: number;
  max: number;
}

class Refused extends Error {}

/** A parser of the pattern subset above; the pattern is already known to be a valid `u` regex. */
class Parser {
  i = 0;
  constructor(readonly s: string) {}

  peek(): string | undefined {
    return this.s[this.i];
  }

  /** One escape after `\`, as a set (inside a class or not). */
  escape(inClass: boolean): CharSet {
    const c = this.s[this.i++]!;
    switch (c) {
      case 'd':
        return DIGIT;
      case 'D':
        return complement(DIGIT);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      case 'n':
        return range(10, 10);
      case 'r':
        return range(13, 13);
      case 't':
        return range(9, 9);
      case 'v':
        return range(11, 11);
      case 'f':
        return range(12, 12);
      case '0':
        return range(0, 0);
      case 'b':
        if (inClass) return range(8, 8);
        throw new Refused('word boundaries (\\b) are not supported');
      case 'B':
        throw new Refused('\\B is not supported');
      case 'p':
      case 'P':
        // A Unicode property: its members are not listed here, so it may overlap anything.
        this.i = this.s.indexOf('}', this.i) + 1;
        return ALL;
      case 'x': {
        const v = Number.parseInt(this.s.slice(this.i, this.i + 2), 16);
        this.i += 2;
        return range(v, v);
      }
      case 'u': {
        let v: number;
        if (this.s[this.i] === '{') {
          const end = this.s.indexOf('}', this.i);
          v = Number.parseInt(this.s.slice(this.i + 1, end), 16);
          this.i = end + 1;
        } else {
          v = Number.parseInt(this.s.slice(this.i, this.i + 4), 16);
          this.i += 4;
        }
        return range(v, v);
      }
      case 'c': {
        const v = ch(this.s[this.i++]!) % 32;
        return range(v, v);
      }
      case 'k':
        throw new Refused('backreferences are not supported');
      default:
        if (/[1-9]/.test(c)) throw new Refused('backreferences are not supported');
        return range(ch(c), ch(c)); // an escaped syntax character: \. \/ \- …
    }
  }

  /** A class `[...]` after its `[`. */
  charClass(): CharSet {
    const negated = this.peek() === '^';
    if (negated) this.i++;
    const parts: CharSet[] = [];
    const single = (): CharSet => {
      const c = this.s[this.i++]!;
      if (c === '\\') return this.escape(true);
      const cp = this.s.codePointAt(this.i - 1)!;
      if (cp > 0xffff) this.i++;
      return range(cp, cp);
    };
    while (this.peek() !== ']') {
      const a = single();
      if (this.peek() === '-' && this.s[this.i + 1] !== ']' && a.length === 1 && a[0]![0] === a[0]![1]) {
        this.i++;
        const b = single();
        parts.push(b.length === 1 && b[0]![0] === b[0]![1] ? range(a[0]![0], b[0]![0]) : union(a, b));
      } else parts.push(a);
    }
    this.i++;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }

  /** A single-character atom (not a group), or undefined at a group, `|`, `)` or the end. */
  atom(): CharSet | undefined {
    const c = this.peek();
    if (c === undefined || c === '(' || c === ')' || c === '|') return undefined;
    if (c === '^') throw new Refused('^ is allowed only at the start');
    if (c === '$') {
      if (this.i !== this.s.length - 1) throw new Refused('$ is allowed only at the end');
      return undefined;
    }
    this.i++;
    if (c === '.') return DOT;
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape(false);
    const cp = this.s.codePointAt(this.i - 1)!;
    if (cp > 0xffff) this.i++;
    return range(cp, cp);
  }

  /** A quantifier after an atom, as [min, max]; [1, 1] when there is none. */
  quantifier(): [number, number] {
    const c = this.peek();
    let q: [number, number] = [1, 1];
    if (c === '*') q = [0, Number.POSITIVE_INFINITY];
    else if (c === '+') q = [1, Number.POSITIVE_INFINITY];
    else if (c === '?') q = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i));
      if (m) {
        const min = Number(m[1]);
        const max = m[2] === undefined ? min : m[3] === '' ? Number.POSITIVE_INFINITY : Number(m[3]);
        if (Math.max(min, Number.isFinite(max) ? max : 0) > 1000) {
          throw new Refused('a repetition count above 1000');
        }
        this.i += m[0].length - 1;
        q = [min, max];
      }
    }
    if (q[0] !== 1 || q[1] !== 1) {
      this.i++;
      if (this.peek() === '?') this.i++; // lazy: the same set of matches, another order
      if (this.peek() === '*' || this.peek() === '+' || this.peek() === '?' || this.peek() === '{') {
        throw new Refused('nested quantifiers');
      }
    }
    return q;
  }

  /** A group after its `(`: alternatives of unquantified single-character atoms. */
  group(): Item {
    if (this.s.startsWith('?=', this.i) || this.s.startsWith('?!', this.i)) {
      throw new Refused('lookahead is not supported');
    }
    if (this.s.startsWith('?<=', this.i) || this.s.startsWith('?<!', this.i)) {
      throw new Refused('lookbehind is not supported');
    }
    if (this.s.startsWith('?:', this.i)) this.i += 2;
    else if (this.s.startsWith('?<', this.i)) this.i = this.s.indexOf('>', this.i) + 1;
    const firsts: CharSet[] = [];
    const chars: CharSet[] = [];
    for (;;) {
      let first: CharSet | undefined;
      for (;;) {
        if (this.peek() === '(') throw new Refused('groups inside groups');
        const a = this.atom();
        if (a === undefined) break;
        const [min, max] = this.quantifier();
        if (min !== 1 || max !== 1) throw new Refused('a quantifier inside a group');
        first ??= a;
        chars.push(a);
      }
      if (first === undefined) throw new Refused('an empty alternative');
      if (firsts.some((f) => overlaps(f, first!))) {
        throw new Refused('alternatives that can start with the same character');
      }
      firsts.push(first);
      if (this.peek() === '|') {
        this.i++;
        continue;
      }
      this.i++; // ')'
      break;
    }
    const item: Item = { first: union(...firsts), chars: union(...chars), min: 1, max: 1 };
    const c = this.peek();
    if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(this.s.slice(this.i)))) {
      throw new Refused('a quantifier on a group');
    }
    return item;
  }

  sequence(): Item[] {
    if (this.peek() !== '^') throw new Refused('the pattern must start with ^');
    this.i++;
    const items: Item[] = [];
    while (this.i < this.s.length) {
      const c = this.peek();
      if (c === '|') throw new Refused('| outside a group');
      if (c === '$') {
        this.atom();
        break;
      }
      if (c === '(') {
        this.i++;
        items.push(this.group());
        continue;
      }
      const a = this.atom()!;
      const [min, max] = this.quantifier();
      items.push({ first: a, chars: a, min, max });
    }
    return items;
  }
}

/**
 * Why a JSON Schema `pattern` is refused, or undefined when it is in the linear-time subset.
 * @example
 * unsafePattern('^[a-z]+@[a-z]+$'); // undefined
 * unsafePattern('^(a+)+$');         // 'a quantifier on a group'
 */
export function unsafePattern(pattern: string): string | undefined {
  if (pattern.length > 256) return 'longer than 256 characters';
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`;
  }
  try {
    const items = new Parser(pattern).sequence();
    items.forEach((q, i) => {
      if (q.min === q.max) return;
      for (const next of items.slice(i + 1)) {
        if (overlaps(q.chars, next.first)) {
          throw new Refused('a variable repetition followed by something that can match the same characters');
        }
        if (next.min >= 1) break;
      }
    });
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return error.message;
    throw error;
  }
}
