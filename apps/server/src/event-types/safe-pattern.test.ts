import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { serviceEvents } from '../service-events.js';
import { unsafePattern } from './safe-pattern.js';

test('accepted: anchored patterns whose repetitions end in one place', () => {
  for (const p of [
    '^[A-Za-z0-9_-]{1,64}$',
    '^[A-Z]{3}$',
    '^[1-9][0-9]{0,17}$',
    '^[\\x21-\\x7e]{1,255}$',
    '^[a-z]+@[a-z]+\\.[a-z]+$',
    '^(open|shipped)$',
    '^(?:eu|us)-[a-z]+-\\d$',
    '^[a-z]{2,5}[0-9]?$',
    '^[a-z]+\\d+$',
    '^\\p{L}+$',
    '^[^,]+,[^,]+$',
    '^x',
  ]) {
    assert.equal(unsafePattern(p), undefined, p);
  }
});

test("every pattern of the service's own types is accepted", () => {
  const patterns: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    if (typeof o.pattern === 'string') patterns.push(o.pattern);
    for (const x of Object.values(o)) walk(x);
  };
  for (const e of serviceEvents) walk(e.schema);
  assert.ok(patterns.length >= 5);
  for (const p of patterns) assert.equal(unsafePattern(p), undefined, p);
});

test('refused, with the reason', () => {
  const table: [string, RegExp][] = [
    ['a*b', /start with \^/],
    ['^a|b', /\| outside a group/],
    ['^(a+)+$', /quantifier inside a group/],
    ['^(ab)+$', /quantifier on a group/],
    ['^(a|ab)c$', /same character/],
    ['^\\s*\\s*$', /variable repetition/],
    ['^.*a.*b', /variable repetition/],
    ['^\\w+\\d$', /variable repetition/],
    ['^[a-z]+[0-9]?[a-z]$', /variable repetition/],
    ['^(a)\\1$', /backreference/],
    ['^(?<x>a)\\k<x>$', /backreference/],
    ['^(?=a)a$', /lookahead/],
    ['^(?<!a)b$', /lookbehind/],
    ['^\\bx$', /boundar/],
    ['^a{1,2000}$', /above 1000/],
    ['^((a))$', /groups inside groups/],
    ['^(a|)$', /empty alternative/],
    ['^a**$', /valid regular expression/],
    [`^${'a'.repeat(300)}$`, /longer than 256/],
  ];
  for (const [p, why] of table) assert.match(unsafePattern(p) ?? 'accepted', why, p);
});

// The property the rules exist for: whatever pattern they accept runs in time linear in the input,
// on inputs made to hurt backtracking (long runs of the pattern's own characters, a bad last one).
test('any accepted pattern stays fast on hostile 20 000-character inputs', () => {
  const atom = fc.constantFrom('a', 'b', '@', '.', '\\d', '\\w', '\\s', '[a-z]', '[^a]', '[ab]', '\\.', ' ');
  const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,3}', '{2,}', '{0,50}');
  const item = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(atom, quantifier).map(([a, q]) => a + q) },
    { weight: 1, arbitrary: fc.tuple(atom, atom).map(([x, y]) => `(${x}|${y})`) },
  );
  const pattern = fc
    .tuple(fc.array(item, { minLength: 1, maxLength: 6 }), fc.boolean())
    .map(([items, end]) => `^${items.join('')}${end ? '$' : ''}`);
  let accepted = 0;
  fc.assert(
    fc.property(pattern, fc.constantFrom('a', 'b', '@', ' ', '1', '.'), (p, c) => {
      if (unsafePattern(p) !== undefined) return;
      accepted++;
      const re = new RegExp(p, 'u');
      for (const input of [c.repeat(20_000), `${c.repeat(20_000)}!`, `${'ab'.repeat(10_000)}!`]) {
        const started = performance.now();
        re.test(input);
        const ms = performance.now() - started;
        assert.ok(ms < 100, `${p} on ${JSON.stringify(input.slice(0, 5))}…: ${ms.toFixed(1)} ms`);
      }
    }),
    { numRuns: 400 },
  );
  assert.ok(accepted > 50, `only ${accepted} accepted patterns tried`);
});
