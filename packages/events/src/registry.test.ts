import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serviceEvents, serviceRegistry } from '../test/service-catalogue.js';
import { type EventError, isEventError } from './errors.js';
import type { EventDefinition } from './event-definition.js';
import { isObject } from './json-schema.js';
import { createRegistry, publishValidator, validateEvent } from './registry.js';

const registry = serviceRegistry();
const clone = <T>(v: T): T => structuredClone(v);

const failure = (type: string, data: unknown) => {
  const r = validateEvent(registry, type, data);
  assert.equal(r.ok, false, `${type} should fail: ${JSON.stringify(data)}`);
  return (r as { ok: false; error: import('./errors.js').EventError }).error;
};

describe('the service registry', () => {
  it('registers the fifteen service events', () => {
    assert.deepEqual(
      registry.list().map((e) => e.type),
      [
        'delivery.failed',
        'endpoint.backlog_cleared',
        'endpoint.backlog_exceeded',
        'endpoint.circuit_closed',
        'endpoint.circuit_opened',
        'endpoint.disabled',
        'endpoint.secret_expiring',
        'inventory.reserved',
        'order.created',
        'order.shipped',
        'order.updated',
        'payment.created',
        'payment.failed',
        'payment.succeeded',
        'webhook.test',
      ],
    );
  });

  for (const def of serviceEvents) {
    describe(def.type, () => {
      const schema = def.schema;
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = (schema.required as string[]) ?? [];

      it('its sample validates', () => {
        assert.deepEqual(validateEvent(registry, def.type, def.sample), { kind: 'valid', ok: true });
      });

      for (const field of required) {
        it(`missing ${field} fails at /${field}`, () => {
          const data = clone(def.sample) as Record<string, unknown>;
          delete data[field];
          const e = failure(def.type, data);
          assert.equal(e.code, 'SURETY_EVENT_INVALID_PAYLOAD');
          assert.deepEqual(e.errors, [{ path: `/${field}`, message: 'is required' }]);
        });
      }

      for (const [field, sub] of Object.entries(properties)) {
        it(`a wrong type for ${field} fails at /${field}`, () => {
          const types = ([] as unknown[]).concat(isObject(sub) ? sub.type : []);
          const data = clone(def.sample) as Record<string, unknown>;
          data[field] = types.includes('object') ? 42 : { wrong: true };
          const e = failure(def.type, data);
          assert.ok(e.errors.length > 0);
          assert.ok(
            e.errors.every((i) => i.path === `/${field}`),
            JSON.stringify(e.errors),
          );
        });
      }

      it('an undocumented field fails (publication is closed, the document open)', () => {
        const data = { ...(clone(def.sample) as object), surprise: 1 };
        assert.deepEqual(failure(def.type, data).errors, [
          { path: '/surprise', message: 'is not in the schema of this event type' },
        ]);
      });
    });
  }

  it('points into nested arrays and maps', () => {
    const order = clone(serviceEvents.find((e) => e.type === 'order.created')!.sample) as {
      items: { sku: string; quantity: number }[];
      metadata: Record<string, unknown>;
    };
    order.items[1]!.quantity = 0;
    order.items[0]!.sku = 'no spaces allowed';
    order.metadata.count = 3;
    const e = failure('order.created', order);
    assert.deepEqual(
      e.errors.map((i) => i.path),
      ['/items/0/sku', '/items/1/quantity', '/metadata/count'],
    );
    assert.match(e.message, /^invalid order\.created payload: \/items\/0\/sku .* \(and 2 more\)$/);
  });

  it('checks formats, patterns and enums', () => {
    const pay = clone(serviceEvents.find((e) => e.type === 'payment.created')!.sample) as Record<
      string,
      unknown
    >;
    const bad = { ...pay, createdAt: 'yesterday', currency: 'eur', amount: '19.99', status: 'pending' };
    const e = failure('payment.created', bad);
    assert.deepEqual(e.errors.map((i) => i.path).sort(), ['/amount', '/createdAt', '/currency', '/status']);
    assert.deepEqual(
      e.errors.find((i) => i.path === '/status'),
      { path: '/status', message: 'must be one of "processing", "succeeded", "failed"' },
    );
    const order = serviceEvents.find((e) => e.type === 'order.created')!.sample as Record<string, unknown>;
    assert.deepEqual(failure('order.created', { ...order, object: 'payment' }).errors, [
      { path: '/object', message: 'must be "order"' },
    ]);
  });

  it('rejects data that is not an object at the root path', () => {
    assert.deepEqual(failure('webhook.test', 'hello').errors, [{ path: '', message: 'must be object' }]);
    assert.equal(failure('webhook.test', null).code, 'SURETY_EVENT_INVALID_PAYLOAD');
  });

  it('rejects an unknown type with its own code', () => {
    const e = failure('invoice.paid', {});
    assert.equal(e.code, 'SURETY_EVENT_UNKNOWN_TYPE');
    assert.deepEqual(e.errors, []);
  });
});

describe('the publish validator', () => {
  it('has the (type, data) => void shape, works unbound and throws with errors', () => {
    const validate: (type: string, data: unknown) => void = publishValidator(registry);
    const sample = serviceEvents[0]!.sample;
    assert.equal(validate(serviceEvents[0]!.type, sample), undefined);
    assert.throws(
      () => validate('payment.created', { ...(sample as object), amount: 12 }),
      (e: unknown) =>
        isEventError(e) &&
        e.code === 'SURETY_EVENT_INVALID_PAYLOAD' &&
        e.errors.length === 1 &&
        e.errors[0]!.path === '/amount' &&
        e.errors[0]!.message === 'must be string',
    );
    assert.throws(() => validate('nope.nope', {}), { code: 'SURETY_EVENT_UNKNOWN_TYPE' });
    const { assertValid } = registry;
    assert.throws(() => assertValid('nope.nope', {}), { name: 'EventError' });
  });

  it('caps the number of reported problems', () => {
    const r = createRegistry({ events: [], maxErrors: 2 });
    r.register({
      type: 'thing.happened',
      description: 'A thing happened.',
      schema: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } },
      },
      sample: {},
    });
    const res = r.validate('thing.happened', { a: 1, b: 2, c: 3 });
    assert.equal(res.ok, false);
    assert.equal(res.ok ? 0 : res.error.errors.length, 2);
  });
});

describe('register()', () => {
  const def = {
    type: 'invoice.paid',
    description: 'An invoice was paid.',
    schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
    sample: { id: 'inv_1' },
  };

  it('adds a custom type at runtime, validated from then on', () => {
    const r = serviceRegistry();
    assert.equal(r.validate('invoice.paid', { id: 'x' }).ok, false);
    r.register(def);
    assert.ok(r.has('invoice.paid'));
    assert.deepEqual(r.validate('invoice.paid', { id: 'x' }), { kind: 'valid', ok: true });
    assert.equal(r.get('invoice.paid')!.version, 1);
    assert.equal(serviceRegistry().has('invoice.paid'), false, 'registries do not share types');
  });

  it('starts empty: the library ships no catalogue (the service keeps its own, issue 34)', () => {
    assert.deepEqual(createRegistry().list(), []);
    assert.equal(createRegistry().has('order.created'), false);
  });

  it('copies and freezes what it was given', () => {
    const r = createRegistry({ events: [] });
    const mine = structuredClone(def);
    r.register(mine);
    (mine.schema.properties.id as { type: string }).type = 'integer';
    assert.deepEqual(r.validate('invoice.paid', { id: 'x' }), { kind: 'valid', ok: true });
    assert.ok(Object.isFrozen(r.get('invoice.paid')!.schema));
  });

  it('refuses bad definitions with SURETY_EVENT_INVALID_DEFINITION', () => {
    const r = createRegistry({ events: [] });
    const bad: EventDefinition[] = [
      { ...def, type: 'Invoice.Paid' },
      { ...def, type: 'invoice' },
      { ...def, description: ' ' },
      { ...def, schema: { type: 'object', properties: { id: { type: 'strin' } } } },
      { ...def, schema: { type: 'object', propertiez: {} } },
      { ...def, schema: { $ref: 'https://example.com/schema.json' } },
      { ...def, sample: { id: 1 } },
      { ...def, sample: { id: 'x', extra: true } },
      { ...def, version: 0 },
    ];
    for (const d of bad) {
      assert.throws(() => r.register(d), { code: 'SURETY_EVENT_INVALID_DEFINITION' }, JSON.stringify(d));
    }
    assert.equal(r.list().length, 0);
  });

  it("a failing sample's error lists where it failed; other definition errors list nothing", () => {
    const r = createRegistry({ events: [] });
    assert.throws(
      () => r.register({ ...def, sample: { id: 1 } }),
      (e: EventError) => {
        assert.deepEqual(e.errors, [{ path: '/id', message: 'must be string' }]);
        return true;
      },
    );
    assert.throws(
      () => r.register({ ...def, schema: { type: 'object', properties: { id: { type: 'strin' } } } }),
      (e: EventError) => e.code === 'SURETY_EVENT_INVALID_DEFINITION' && e.errors.length === 0,
    );
  });

  it('refuses a duplicate type', () => {
    const r = createRegistry({ events: [] }).register(def);
    assert.throws(() => r.register(def), { code: 'SURETY_EVENT_DUPLICATE_TYPE' });
  });

  it('lets a schema allow extra keys explicitly, or a registry be open', () => {
    const open = { ...def, type: 'invoice.open', schema: { ...def.schema, additionalProperties: true } };
    const r = createRegistry({ events: [] }).register(open);
    assert.deepEqual(r.validate('invoice.open', { id: 'x', more: 1 }), { kind: 'valid', ok: true });
    const loose = createRegistry({ events: [], closed: false }).register(def);
    assert.deepEqual(loose.validate('invoice.paid', { id: 'x', more: 1 }), { kind: 'valid', ok: true });
  });
});

describe('ValidationResult is tagged kind (issue 16)', () => {
  it('narrows on kind: invalid carries the error, valid nothing; ok says the same', () => {
    const r = serviceRegistry();
    r.register({
      type: 'invoice.sent',
      description: 'An invoice was sent.',
      schema: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
      sample: { id: 'inv_1' },
    });
    const bad = r.validate('invoice.sent', {});
    const good = r.validate('invoice.sent', { id: 'x' });
    const read = (v: typeof bad) => (v.kind === 'invalid' ? v.error.code : 'valid');
    assert.equal(read(bad), 'SURETY_EVENT_INVALID_PAYLOAD');
    assert.equal(read(good), 'valid');
    assert.equal(read(r.validate('nope.nope', {})), 'SURETY_EVENT_UNKNOWN_TYPE');
    for (const v of [bad, good]) assert.equal(v.ok, v.kind === 'valid');
  });
});
