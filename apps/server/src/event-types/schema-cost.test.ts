// The static cost bound of tenant schemas (issue 30, N1), and a bounded fuzzer of schema shapes:
// random nestings of oneOf/anyOf/allOf/not/if/const/enum, lists, tuples (additionalItems), `contains`,
// `uniqueItems`, properties and patternProperties (with and without maxItems/maxProperties) within the untrusted-schema
// rules (250 shapes, seeded: SURETY_FUZZ_SEED repeats one). For every shape, the decision (rules,
// then the bound) is made in a single linear pass; for every accepted one, a worst-case payload of a full request body is validated in this thread and
// its CPU time stays under what the bound allows (the model's units at a generous 250 ns each, plus
// a constant): so no accepted schema can make validation slower than its computed cost says.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileType } from './compile-type.js';
import { COST_LIMITS, costIssues, schemaCost } from './schema-cost.js';
import { untrustedSchemaIssues } from './untrusted-schema.js';

const BODY = 65_536;
const MAX_VALUES = BODY / 2;

test('the issue’s fixtures are over the bound; plain and bounded shapes are under it', () => {
  const items = (s: unknown) => ({ type: 'object', properties: { a: { type: 'array', items: s } } });
  const oneOf1500 = items({
    oneOf: [{ type: 'integer' }, ...Array.from({ length: 1500 }, (_, i) => ({ const: `s${i}` }))],
  });
  const anyOf800 = items({ anyOf: Array.from({ length: 800 }, () => ({ type: 'null' })) });
  assert.match(costIssues(oneOf1500, MAX_VALUES, '/schema')[0]!.message, /subschemas/);
  assert.match(costIssues(anyOf800, MAX_VALUES, '/schema')[0]!.message, /subschemas/);
  // Under the subschema limit, still too costly per item: 60 branches applied to every item.
  const oneOf60 = items({ oneOf: Array.from({ length: 60 }, (_, i) => ({ const: `s${i}` })) });
  assert.match(costIssues(oneOf60, MAX_VALUES, '/schema')[0]!.message, /units of work/);
  // The same branches under maxItems: 100 are fine.
  const bounded = {
    type: 'object',
    properties: { a: { type: 'array', maxItems: 100, items: oneOf60.properties.a.items } },
  };
  assert.deepEqual(costIssues(bounded, MAX_VALUES, '/schema'), []);
  assert.deepEqual(costIssues(items({ type: 'integer' }), MAX_VALUES, '/schema'), []);
  const enum1500 = items({ enum: Array.from({ length: 1500 }, (_, i) => `s${i}`) });
  assert.match(costIssues(enum1500, MAX_VALUES, '/schema')[0]!.message, /units of work/);
  // A typical business object is far under.
  const invoice = {
    type: 'object',
    required: ['id'],
    properties: {
      id: { type: 'string', maxLength: 64 },
      lines: {
        type: 'array',
        items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } },
      },
      status: { enum: ['paid', 'void', 'open'] },
    },
  };
  const c = schemaCost(invoice, MAX_VALUES);
  assert.ok(c.units < c.budget / 4, JSON.stringify(c));
});

/** A seeded random source (mulberry32). */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Schema = Record<string, unknown>;

/**
 * A random schema shape, `depth` levels at most; branch counts up to 300, enums up to 500; at most
 * `budget.nodes` subschemas in all (past it, leaves only).
 */
function shape(r: () => number, depth: number, budget: { nodes: number }): Schema {
  budget.nodes--;
  const int = (n: number) => Math.floor(r() ** 4 * n) + 1; // mostly small, sometimes large
  const leaf = (): Schema => {
    const k = r();
    if (k < 0.3) return { type: ['integer', 'string', 'null', 'boolean'][Math.floor(r() * 4)] };
    if (k < 0.55) return { const: r() < 0.5 ? Math.floor(r() * 10) : `s${Math.floor(r() * 10)}` };
    if (k < 0.8) return { enum: Array.from({ length: int(500) }, (_, i) => (r() < 0.5 ? i : `e${i}`)) };
    return { type: 'string', maxLength: int(100) };
  };
  if (depth <= 0 || budget.nodes <= 0) return leaf();
  const k = r();
  const sub = () => shape(r, depth - 1 - Math.floor(r() * 2), budget);
  if (k < 0.25) {
    const kw = ['oneOf', 'anyOf', 'allOf'][Math.floor(r() * 3)]!;
    return { [kw]: Array.from({ length: int(300) }, sub) };
  }
  if (k < 0.5) {
    const bound = r() < 0.7 ? { maxItems: int(2000) } : {};
    const k2 = r();
    // a list, a tuple (items as an array, the rest by additionalItems), or a list with `contains`;
    // any of them with uniqueItems (pairwise deep comparisons)
    const unique = r() < 0.25 ? { uniqueItems: true } : {};
    if (k2 < 0.6) return { type: 'array', items: sub(), ...bound, ...unique };
    if (k2 < 0.8)
      return {
        type: 'array',
        items: Array.from({ length: int(20) }, sub),
        ...(r() < 0.7 ? { additionalItems: sub() } : {}),
        ...bound,
        ...unique,
      };
    return { type: 'array', items: sub(), contains: sub(), ...bound, ...unique };
  }
  if (k < 0.7) {
    const n = int(30);
    const bound = r() < 0.5 ? { maxProperties: int(2000) } : {};
    // named properties, or a map keyed by patterns (a pattern each key is tested against)
    if (r() < 0.25)
      return {
        type: 'object',
        patternProperties: Object.fromEntries(Array.from({ length: int(10) }, (_, i) => [`^k${i}_`, sub()])),
        ...bound,
      };
    return {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, sub()])),
      ...(r() < 0.3 ? { additionalProperties: sub() } : {}),
      ...bound,
    };
  }
  if (k < 0.75) return { not: sub() };
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else
  if (k < 0.8) return { if: sub(), then: sub(), else: sub() };
  return leaf();
}

/** A payload that makes the validator work hardest it can within `bytes`: full arrays, last branches. */
function worst(s: Schema, bytes: number): unknown {
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) {
    const branches = (s.oneOf ?? s.anyOf) as Schema[];
    return worst(branches.at(-1)!, bytes); // every branch before it is tried (and fails) first
  }
  if (Array.isArray(s.allOf)) return worst((s.allOf as Schema[])[0]!, bytes);
  if (Array.isArray(s.enum)) return 'no such value'; // compared with every value
  if ('const' in s) return s.const;
  if (s.type === 'array' && s.items) {
    // A tuple's positions first, then the rest (additionalItems, or the last position's shape).
    const rest = Array.isArray(s.items)
      ? ((s.additionalItems ?? s.items.at(-1) ?? {}) as Schema)
      : (s.items as Schema);
    const head = Array.isArray(s.items) ? (s.items as Schema[]).map((x) => worst(x, 64)) : [];
    const one = worst(rest, 64);
    const each = JSON.stringify(one ?? null).length + 1;
    const max = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
    const n = Math.max(0, Math.min(max - head.length, Math.floor(bytes / each) - head.length));
    // uniqueItems: distinct elements where they can be made distinct (every pair compared), else
    // equal ones; `contains`: no element matches it, so every element is tried.
    const element = (i: number) =>
      s.uniqueItems !== true
        ? one
        : typeof one === 'number'
          ? i
          : typeof one === 'string'
            ? `${one}${i}`
            : one;
    return [...head, ...Array.from({ length: n }, (_, i) => element(i))];
  }
  if (s.type === 'object' && s.patternProperties) {
    // As many keys as fit, each tested against every pattern; the last pattern's shape.
    const pats = Object.keys(s.patternProperties as Record<string, Schema>);
    const value = worst((s.patternProperties as Record<string, Schema>)[pats.at(-1)!]!, 64);
    const each = JSON.stringify(value ?? null).length + 12;
    const max = typeof s.maxProperties === 'number' ? s.maxProperties : Infinity;
    const n = Math.max(0, Math.min(max, Math.floor(bytes / each)));
    const prefix = pats.at(-1)!.slice(1);
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, value]));
  }
  if (s.type === 'object' && s.properties) {
    const props = Object.entries(s.properties as Record<string, Schema>);
    return Object.fromEntries(props.map(([k, v]) => [k, worst(v, Math.floor(bytes / (props.length + 1)))]));
  }
  if (s.type === 'string') return 'x';
  if (s.type === 'null') return null;
  if (s.type === 'boolean') return true;
  return 0;
}

test('fuzzer: 250 random schema shapes, each decided in one pass; every accepted one validates a worst-case body within its bound', () => {
  const seed = Number(process.env.SURETY_FUZZ_SEED ?? 30);
  const r = seeded(seed);
  let accepted = 0;
  let refused = 0;
  let slowestDecisionMs = 0;
  let worstNsPerUnit = 0;
  let worstCase = '';
  for (let i = 0; i < 250; i++) {
    const schema = { type: 'object', properties: { a: shape(r, 1 + Math.floor(r() * 5), { nodes: 1500 }) } };
    // CPU time, not wall time: a loaded machine (two suites at once) must not fail a fast decision.
    const started = process.cpuUsage();
    const rules = untrustedSchemaIssues(schema, '/schema');
    const costly = rules.length === 0 ? costIssues(schema, MAX_VALUES, '/schema') : [];
    const spent = process.cpuUsage(started);
    const decisionMs = (spent.user + spent.system) / 1000;
    slowestDecisionMs = Math.max(slowestDecisionMs, decisionMs);
    if (rules.length > 0 || costly.length > 0) {
      refused++;
      continue;
    }
    const payload = { a: worst(schema.properties.a, BODY - 100) };
    if (Buffer.byteLength(JSON.stringify(payload)) > BODY) continue; // a request could not carry it
    const compiled = compileType(
      { name: 'fuzz.t', description: 'x', schema, examples: [{}] },
      { maxValues: MAX_VALUES },
    );
    if (compiled.kind !== 'compiled') {
      refused++; // ajv's strict mode refuses some shapes (e.g. an enum with duplicates)
      continue;
    }
    accepted++;
    const { units } = schemaCost(schema, MAX_VALUES);
    assert.ok(units <= MAX_VALUES * COST_LIMITS.unitsPerValue);
    // CPU time of this thread (the file runs alone in its process): other processes on a busy
    // machine do not count, as wall time would.
    const cpu0 = process.cpuUsage();
    compiled.registry.validate('fuzz.t', payload);
    const used = process.cpuUsage(cpu0);
    const ms = (used.user + used.system) / 1000;
    if ((ms * 1e6) / units > worstNsPerUnit) {
      worstNsPerUnit = (ms * 1e6) / units;
      worstCase = `${ms.toFixed(1)} ms for ${units} units`;
    }
    assert.ok(
      ms <= 50 + (units * 250) / 1e6,
      `seed ${seed} #${i}: ${ms.toFixed(1)} ms of CPU for ${units} units: ${JSON.stringify(schema).slice(0, 300)}`,
    );
  }
  process.stderr.write(
    `[fuzz] seed ${seed}: ${accepted} accepted, ${refused} refused; slowest decision ${slowestDecisionMs.toFixed(1)} ms; worst ${worstNsPerUnit.toFixed(1)} ns per unit (${worstCase})\n`,
  );
  assert.ok(
    accepted >= 50 && refused >= 50,
    `${accepted} accepted, ${refused} refused: the shapes must test both sides`,
  );
  assert.ok(slowestDecisionMs < 100, `a decision took ${slowestDecisionMs} ms`);
});
