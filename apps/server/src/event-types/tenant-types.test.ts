import assert from 'node:assert/strict';
import { test } from 'node:test';
import { breakingChanges } from './compatibility.js';
import { compileType } from './compile-type.js';

const schema = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } };
const opts = { maxValues: 32_768 };
const def = (version: number) => ({
  name: 'invoice.paid',
  description: 'Paid.',
  schema,
  examples: [{ id: 'x' }],
  version,
});

test('compileType: schema problems and example problems are told apart', () => {
  assert.equal(compileType(def(1), opts).kind, 'compiled');
  const bad = compileType(
    { ...def(1), schema: { type: 'object', properties: { id: { type: 'strin' } } } },
    opts,
  );
  assert.equal(bad.kind === 'invalid' && bad.code, 'invalid_event_schema');
  const example = compileType({ ...def(1), examples: [{ id: 'x' }, { id: 2 }] }, opts);
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
