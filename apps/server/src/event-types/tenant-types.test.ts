import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breakingChanges } from './compatibility.js';
import { compileType, TenantTypes } from './tenant-types.js';

const schema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const def = (version: number) => ({
  name: 'invoice.paid',
  description: 'Paid.',
  schema,
  examples: [{ id: 'x' }],
  version,
});

test('compiled validators are held per (tenant, name, version), at most maxCached, least recently used out', () => {
  const types = new TenantTypes('surety', 2);
  const v1 = types.registryFor('acme', def(1));
  assert.equal(types.registryFor('acme', def(1)), v1, 'a hit');
  assert.notEqual(types.registryFor('globex', def(1)), v1, 'another tenant: its own');
  types.registryFor('acme', def(1)); // acme v1 is now the most recent
  types.registryFor('acme', def(2));
  assert.equal(types.size, 2);
  assert.equal(types.registryFor('acme', def(1)), v1, 'the recently used one stayed');
});

test('compileType: schema problems and example problems are told apart', () => {
  assert.equal(compileType(def(1)).kind, 'compiled');
  const bad = compileType({ ...def(1), schema: { type: 'object', properties: { id: { type: 'strin' } } } });
  assert.equal(bad.kind === 'invalid' && bad.code, 'invalid_event_schema');
  const example = compileType({ ...def(1), examples: [{ id: 'x' }, { id: 2 }] });
  assert.deepEqual(example.kind === 'invalid' && [example.code, example.errors.map((e) => e.path)], [
    'invalid_event_example',
    ['/examples/1/id'],
  ]);
});

test('breakingChanges: none checks nothing; a change is reported once, against the first version it breaks', () => {
  const v2 = { ...schema, required: [] };
  assert.deepEqual(breakingChanges('none', [{ version: 1, schema }], v2), []);
  const r = breakingChanges(
    'full',
    [
      { version: 1, schema },
      { version: 2, schema },
    ],
    v2,
  );
  assert.deepEqual(
    r.map((c) => [c.kind, c.path, c.againstVersion]),
    [['field-now-optional', '/id', 1]],
  );
});
