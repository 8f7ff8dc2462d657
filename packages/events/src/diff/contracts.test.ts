import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceRegistry } from '../../test/service-catalogue.js';
import { buildAsyncApi, serviceContract } from '../asyncapi.js';
import type { EventDefinition } from '../event-definition.js';
import type { JsonSchema } from '../json-schema.js';
import { createRegistry } from '../registry.js';
import { diffContracts, formatReport, isAllowedChange, majorOf } from './contracts.js';
import type { ChangeKind } from './types.js';

const base: EventDefinition = {
  type: 'parcel.sent',
  description: 'A parcel was sent.',
  schema: {
    type: 'object',
    required: ['id', 'status', 'weight', 'tags', 'labels'],
    properties: {
      id: { type: 'string', maxLength: 64, description: 'The parcel id.' },
      status: { type: 'string', enum: ['sent', 'lost'] },
      weight: { type: 'integer', minimum: 1 },
      note: { type: ['string', 'null'] },
      tags: {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      carrier: { type: 'string', pattern: '^[a-z]+$' },
    },
  },
  sample: { id: 'p1', status: 'sent', weight: 3, tags: [{ name: 'fragile' }], labels: { a: 'b' } },
};
const other: EventDefinition = {
  type: 'parcel.lost',
  description: 'A parcel was lost.',
  schema: { type: 'object', properties: {} },
  sample: {},
};

type Data = { required: string[]; properties: Record<string, JsonSchema> };
type Doc = ReturnType<typeof buildAsyncApi>;
type Message = { payload: { properties: { data: Data } } };

const before: Doc = buildAsyncApi(createRegistry({ events: [base, other] }), { version: '1.0.0' });
const messages = (d: Doc) => d.components!.messages! as Record<string, Message>;
/** A copy of the base contract, with `edit` applied to parcel.sent's data schema. */
const edited = (edit: (data: Data) => void, version = '1.0.0'): Doc => {
  const d = structuredClone(before);
  d.info.version = version;
  edit(messages(d)['parcel.sent']!.payload.properties.data);
  return d;
};
/** A copy of the base contract with `edit` applied to its messages. */
const withMessages = (edit: (m: Record<string, Message>) => void): Doc => {
  const d = structuredClone(before);
  edit(messages(d));
  return d;
};

const cases: { name: string; after: Doc; kind: ChangeKind; breaking: boolean; path: string }[] = [
  {
    name: 'removed event type',
    after: withMessages((m) => delete m['parcel.lost']),
    kind: 'event-type-removed',
    breaking: true,
    path: '',
  },
  {
    name: 'removed field',
    after: edited((d) => delete d.properties.weight),
    kind: 'field-removed',
    breaking: true,
    path: '/payload/data/weight',
  },
  {
    name: 'renamed field',
    after: edited((d) => {
      d.properties.parcelId = { ...d.properties.id!, description: 'Renamed.' };
      delete d.properties.id;
      d.required = d.required.map((r) => (r === 'id' ? 'parcelId' : r));
    }),
    kind: 'field-renamed',
    breaking: true,
    path: '/payload/data/id',
  },
  {
    // Issue 30, N6: a removed field and an optional one of the same schema are not a rename (adding
    // an optional field is additive; the removal is reported on its own).
    name: 'removed field beside an added optional one of the same schema',
    after: edited((d) => {
      d.properties.grams = { ...d.properties.weight! };
      delete d.properties.weight;
      d.required = d.required.filter((r) => r !== 'weight');
    }),
    kind: 'field-removed',
    breaking: true,
    path: '/payload/data/weight',
  },
  {
    name: 'changed type',
    after: edited((d) => {
      d.properties.weight = { type: 'number', minimum: 1 };
    }),
    kind: 'type-changed',
    breaking: true,
    path: '/payload/data/weight',
  },
  {
    name: 'nullable added',
    after: edited((d) => {
      d.properties.carrier = { type: ['string', 'null'], pattern: '^[a-z]+$' };
    }),
    kind: 'type-changed',
    breaking: true,
    path: '/payload/data/carrier',
  },
  {
    name: 'nested type change in array items',
    after: edited((d) => {
      (d.properties.tags!.items as Data).properties.name = { type: 'integer' };
    }),
    kind: 'type-changed',
    breaking: true,
    path: '/payload/data/tags/*/name',
  },
  {
    name: 'map value type change',
    after: edited((d) => {
      d.properties.labels = { type: 'object', additionalProperties: { type: 'integer' } };
    }),
    kind: 'type-changed',
    breaking: true,
    path: '/payload/data/labels/*',
  },
  {
    name: 'new required field',
    after: edited((d) => {
      d.properties.newRequired = { type: 'string' };
      d.required.push('newRequired');
    }),
    kind: 'required-field-added',
    breaking: true,
    path: '/payload/data/newRequired',
  },
  {
    name: 'optional field made required',
    after: edited((d) => {
      d.required.push('note');
    }),
    kind: 'field-now-required',
    breaking: true,
    path: '/payload/data/note',
  },
  {
    name: 'required field made optional',
    after: edited((d) => {
      d.required = d.required.filter((r) => r !== 'weight');
    }),
    kind: 'field-now-optional',
    breaking: true,
    path: '/payload/data/weight',
  },
  {
    name: 'narrowed enum',
    after: edited((d) => {
      d.properties.status = { type: 'string', enum: ['sent'] };
    }),
    kind: 'enum-narrowed',
    breaking: true,
    path: '/payload/data/status',
  },
  {
    name: 'enum on a free field',
    after: edited((d) => {
      d.properties.note = { type: ['string', 'null'], enum: ['a', null] };
    }),
    kind: 'enum-narrowed',
    breaking: true,
    path: '/payload/data/note',
  },
  {
    name: 'new pattern',
    after: edited((d) => {
      d.properties.id = { ...d.properties.id!, pattern: '^p' };
    }),
    kind: 'constraint-tightened',
    breaking: true,
    path: '/payload/data/id',
  },
  {
    name: 'changed pattern',
    after: edited((d) => {
      d.properties.carrier = { type: 'string', pattern: '^[a-z]{2}$' };
    }),
    kind: 'constraint-tightened',
    breaking: true,
    path: '/payload/data/carrier',
  },
  {
    name: 'smaller maxLength',
    after: edited((d) => {
      d.properties.id = { ...d.properties.id!, maxLength: 32 };
    }),
    kind: 'constraint-tightened',
    breaking: true,
    path: '/payload/data/id',
  },
  {
    name: 'higher minimum',
    after: edited((d) => {
      d.properties.weight = { type: 'integer', minimum: 2 };
    }),
    kind: 'constraint-tightened',
    breaking: true,
    path: '/payload/data/weight',
  },
  {
    name: 'new format',
    after: edited((d) => {
      d.properties.note = { type: ['string', 'null'], format: 'date-time' };
    }),
    kind: 'constraint-tightened',
    breaking: true,
    path: '/payload/data/note',
  },
  {
    name: 'closed object',
    after: edited((d) => {
      (d as JsonSchema).additionalProperties = false;
    }),
    kind: 'constraint-tightened',
    breaking: true,
    path: '/payload/data',
  },
  {
    name: 'type replaced by a composition',
    after: edited((d) => {
      d.properties.note = { anyOf: [{ type: 'string' }, { type: 'null' }] };
    }),
    kind: 'type-changed',
    breaking: true,
    path: '/payload/data/note',
  },
  {
    name: 'changed composition',
    after: withMessages((m) => {
      const data = m['parcel.lost']!.payload.properties.data as JsonSchema;
      data.oneOf = [{ required: ['a'] }];
    }),
    kind: 'schema-changed',
    breaking: true,
    path: '/payload/data',
  },
  {
    name: 'new event type',
    after: withMessages((m) => {
      m['parcel.found'] = { ...structuredClone(m['parcel.lost']!), name: 'parcel.found' } as Message;
    }),
    kind: 'event-type-added',
    breaking: false,
    path: '',
  },
  {
    name: 'new optional field',
    after: edited((d) => {
      d.properties.eta = { type: 'string', format: 'date-time' };
    }),
    kind: 'optional-field-added',
    breaking: false,
    path: '/payload/data/eta',
  },
  {
    name: 'new optional nested field',
    after: edited((d) => {
      (d.properties.tags!.items as Data).properties.color = { type: 'string' };
    }),
    kind: 'optional-field-added',
    breaking: false,
    path: '/payload/data/tags/*/color',
  },
  {
    name: 'widened enum',
    after: edited((d) => {
      d.properties.status = { type: 'string', enum: ['sent', 'lost', 'returned'] };
    }),
    kind: 'enum-widened',
    breaking: false,
    path: '/payload/data/status',
  },
  {
    name: 'larger maxLength',
    after: edited((d) => {
      d.properties.id = { ...d.properties.id!, maxLength: 128 };
    }),
    kind: 'constraint-loosened',
    breaking: false,
    path: '/payload/data/id',
  },
  {
    name: 'pattern dropped',
    after: edited((d) => {
      d.properties.carrier = { type: 'string' };
    }),
    kind: 'constraint-loosened',
    breaking: false,
    path: '/payload/data/carrier',
  },
  {
    name: 'field deprecated',
    after: edited((d) => {
      d.properties.note = { ...d.properties.note!, deprecated: true };
    }),
    kind: 'deprecated',
    breaking: false,
    path: '/payload/data/note',
  },
];

describe('diffContracts', () => {
  for (const c of cases) {
    it(`${c.breaking ? 'catches' : 'passes'} ${c.name}`, () => {
      const diff = diffContracts(before, c.after);
      assert.equal(diff.breaking, c.breaking, formatReport(diff));
      const match = diff.changes.find((x) => x.kind === c.kind && x.path === c.path);
      assert.ok(match, `expected ${c.kind} at ${c.path}; got\n${formatReport(diff)}`);
      assert.equal(match.breaking, c.breaking);
      if (!c.breaking) assert.ok(diff.changes.every((x) => !x.breaking));
    });
  }

  it('sees no change between a document and itself, or a copy with new descriptions and examples', () => {
    const contract = serviceContract(serviceRegistry());
    assert.deepEqual(diffContracts(contract, structuredClone(contract)).changes, []);
    const reworded = structuredClone(contract);
    for (const m of Object.values(reworded.components!.messages!) as Record<string, unknown>[]) {
      m.description = 'Reworded.';
      m.examples = [];
      (m.payload as { properties: { id: { description: string } } }).properties.id.description = 'x';
    }
    assert.deepEqual(diffContracts(contract, reworded).changes, []);
  });

  it('reports a renamed event type as removed plus added', () => {
    const diff = diffContracts(
      before,
      withMessages((m) => {
        m['parcel.missing'] = { ...m['parcel.lost']!, name: 'parcel.missing' } as Message;
        delete m['parcel.lost'];
      }),
    );
    assert.deepEqual(
      diff.changes.map((c) => `${c.kind} ${c.eventType}`),
      ['event-type-removed parcel.lost', 'event-type-added parcel.missing'],
    );
  });

  it('checks the signature headers as well as the payload', () => {
    const after = structuredClone(before);
    const headers = after.components!.schemas!.WebhookHeaders as {
      required: string[];
      properties: Record<string, unknown>;
    };
    delete headers.properties['webhook-id'];
    headers.required = headers.required.filter((h) => h !== 'webhook-id');
    const diff = diffContracts(before, after);
    assert.ok(diff.changes.some((c) => c.kind === 'field-removed' && c.path === '/headers/webhook-id'));
  });

  it('refuses what is not AsyncAPI 3', () => {
    assert.throws(() => diffContracts({ asyncapi: '2.6.0' }, before), {
      code: 'SURETY_CONTRACT_INVALID_DOCUMENT',
    });
    assert.throws(() => diffContracts(before, 'nope'), { code: 'SURETY_CONTRACT_INVALID_DOCUMENT' });
  });
});

describe('the version rule', () => {
  const breakingAfter = edited((d) => delete d.properties.weight, '1.1.0');

  it('accepts a breaking change only with a higher major', () => {
    assert.equal(isAllowedChange(diffContracts(before, breakingAfter)), false);
    assert.equal(
      isAllowedChange(
        diffContracts(
          before,
          edited((d) => delete d.properties.weight, '2.0.0'),
        ),
      ),
      true,
    );
    assert.equal(
      isAllowedChange(
        diffContracts(
          before,
          edited((d) => {
            d.properties.eta = { type: 'string' };
          }),
        ),
      ),
      true,
    );
    assert.equal(majorOf('v10.2.0'), 10);
    assert.ok(Number.isNaN(majorOf('next')));
  });

  it('reports readably', () => {
    const report = formatReport(diffContracts(before, breakingAfter));
    assert.equal(
      report,
      [
        'contract 1.0.0 → 1.1.0',
        '1 breaking:',
        '  ✗ parcel.sent: /payload/data/weight was removed [field-removed]',
        'BREAKING: consumers of the old contract would break',
      ].join('\n'),
    );
  });
});
