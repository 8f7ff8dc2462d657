// Event types through the API (issue 19): the semantics of every route, the compatibility modes
// (a breaking change refused and an additive one accepted under each), validation at publish,
// reserved types, and the tenant's AsyncAPI document.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Parser } from '@asyncapi/parser';
import type { LightMyRequestResponse } from 'fastify';
import { auth, createTestApp, problem, type TestApp } from './helpers.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const call = (
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
  tenant: 'acme' | 'globex' = 'acme',
): Promise<LightMyRequestResponse> =>
  t.app.inject({
    method: method as 'GET',
    url,
    headers: {
      ...auth(tenant),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

const invoiceSchema = {
  type: 'object',
  required: ['id', 'amount', 'status'],
  properties: {
    id: { type: 'string', pattern: '^inv_[0-9A-Za-z]{1,32}$' },
    amount: { type: 'integer', minimum: 1 },
    status: { type: 'string', enum: ['paid', 'void'] },
    note: { type: 'string', maxLength: 100 },
  },
};
const invoice = { id: 'inv_1', amount: 100, status: 'paid' };
const create = (name: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  call(
    'POST',
    '/v1/event-types',
    { name, description: 'An invoice.', schema: invoiceSchema, examples: [invoice], ...extra },
    headers,
  );
const patch = async (name: string, body: unknown) => {
  const etag = String((await call('GET', `/v1/event-types/${name}`)).headers.etag);
  return call('PATCH', `/v1/event-types/${name}`, body, { 'if-match': etag });
};
let seq = 0;
const publish = (type: string, data: unknown, tenant: 'acme' | 'globex' = 'acme') =>
  call('POST', '/v1/events', { type, data }, { 'idempotency-key': `et-${++seq}` }, tenant);

describe('POST /v1/event-types', () => {
  test('201 with Location and ETag; the same Idempotency-Key replays it', async () => {
    const r = await create('invoice.paid', {}, { 'idempotency-key': 'et-create-1' });
    assert.equal(r.statusCode, 201, r.body);
    assert.equal(r.headers.location, '/v1/event-types/invoice.paid');
    assert.match(String(r.headers.etag), /^"/);
    const body = r.json();
    assert.equal(body.object, 'event_type');
    assert.equal(body.owner, 'tenant');
    assert.equal(body.reserved, false);
    assert.equal(body.compatibility, 'full');
    assert.equal(body.version, 1);
    const again = await create('invoice.paid', {}, { 'idempotency-key': 'et-create-1' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, r.body);
    // Without the key, or with another: the name is taken.
    problem(await create('invoice.paid'), 409, 'event_type_exists');
    assert.equal(await t.count('event_types'), 1);
  });

  test("a name of the service's catalogue is 409; reserved ones too", async () => {
    for (const name of ['order.shipped', 'endpoint.disabled', 'webhook.test']) {
      problem(await create(name), 409, 'event_type_exists');
    }
  });

  test('examples must validate (422 invalid_event_example, naming the path)', async () => {
    const r = problem(
      await create('invoice.bad', { examples: [invoice, { ...invoice, amount: 0 }] }),
      422,
      'invalid_event_example',
    );
    assert.deepEqual(
      (r as unknown as { errors: { path: string }[] }).errors.map((e) => e.path),
      ['/examples/1/amount'],
    );
    const first = problem(
      await create('invoice.bad', { examples: [{ id: 'inv_1' }] }),
      422,
      'invalid_event_example',
    );
    assert.ok(
      (first as unknown as { errors: { path: string }[] }).errors.some(
        (e) => e.path === '/examples/0/amount',
      ),
    );
    // Objects are validated closed: a field the schema does not list is refused.
    problem(
      await create('invoice.bad', { examples: [{ ...invoice, extra: 1 }] }),
      422,
      'invalid_event_example',
    );
    problem(
      await call('POST', '/v1/event-types', { name: 'invoice.bad', description: 'x', schema: invoiceSchema }),
      400,
      'validation_failed',
    );
    assert.equal((await call('GET', '/v1/event-types/invoice.bad')).statusCode, 404);
  });

  test('schemas outside draft-07, not self-contained, too big or with unsafe patterns: 422 invalid_event_schema', async () => {
    const bad: [unknown, RegExp][] = [
      [{ type: 'object', properties: { a: { $ref: '#/definitions/x' } } }, /\$ref/],
      [{ $id: 'https://example.com/x', type: 'object' }, /\$id/],
      [{ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' }, /draft-07/],
      [{ type: 'object', properties: { a: { type: 'strin' } } }, /compile/],
      [{ type: 'object', propertiez: {} }, /compile|strict|unknown/],
      [{ type: 'string', pattern: '^(a+)+$' }, /pattern refused/],
      [{ type: 'string', pattern: 'a*b' }, /must start with \^/],
      [{ type: 'string', pattern: '^\\s*\\s*$' }, /pattern refused/],
      [{ type: 'string', pattern: '^(a)\\1$' }, /backreference/],
      [{ type: 'object', patternProperties: { '^(x|x)*$': { type: 'string' } } }, /pattern refused/],
      [{ type: 'array', uniqueItems: true }, /uniqueItems/],
      [{ type: 'object', description: 'x'.repeat(40_000) }, /larger than/],
      [JSON.parse(`${'{"not":'.repeat(40)}{}${'}'.repeat(40)}`), /deeper/],
    ];
    for (const [schema, message] of bad) {
      const r = await create('invoice.bad', { schema, examples: [{}] });
      const p = problem(r, 422, 'invalid_event_schema') as unknown as {
        errors: { path: string; message: string }[];
      };
      assert.ok(
        p.errors.every((e) => e.path.startsWith('/schema')),
        r.body,
      );
      assert.match(p.errors.map((e) => e.message).join('; '), message, JSON.stringify(schema).slice(0, 100));
    }
    assert.equal(await t.count('event_types', "name = 'invoice.bad'"), 0);
  });

  test('accepted patterns stay fast on hostile 64 KB strings', async () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', pattern: '^[a-z]+@[a-z]+\\.[a-z]+$' },
        b: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
        c: { type: 'string', pattern: '^(open|shipped)[0-9]*$' },
      },
    };
    assert.equal((await create('pattern.checked', { schema, examples: [{ a: 'x@y.z' }] })).statusCode, 201);
    const started = performance.now();
    for (const data of [
      { a: `a@${'a'.repeat(60_000)}` },
      { b: 'a'.repeat(60_000) },
      { c: `open${'1'.repeat(60_000)}x` },
    ]) {
      problem(await publish('pattern.checked', data), 422, 'invalid_event');
    }
    assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
  });
});

describe('GET /v1/event-types', () => {
  test("the service's types and the tenant's, by name, paginated, marked by owner and reserved", async () => {
    await create('zeta.created');
    const seen: { name: string; owner: string; reserved: boolean }[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const r: LightMyRequestResponse = await call(
        'GET',
        `/v1/event-types?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      assert.equal(r.statusCode, 200, r.body);
      const page = r.json();
      seen.push(...page.data);
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    const names = seen.map((e) => e.name);
    assert.deepEqual(names, [...names].sort());
    assert.equal(new Set(names).size, names.length);
    for (const n of ['order.shipped', 'endpoint.disabled', 'invoice.paid', 'zeta.created'])
      assert.ok(names.includes(n), n);
    const by = Object.fromEntries(seen.map((e) => [e.name, e]));
    assert.equal(by['order.shipped']!.owner, 'service');
    assert.equal(by['order.shipped']!.reserved, false);
    assert.equal(by['endpoint.disabled']!.reserved, true);
    assert.equal(by['webhook.test']!.reserved, true);
    assert.equal(by['zeta.created']!.owner, 'tenant');
    // Another tenant sees the service's types and none of acme's.
    const other = (await call('GET', '/v1/event-types?limit=100', undefined, {}, 'globex')).json();
    assert.ok(other.data.every((e: { owner: string }) => e.owner === 'service'));
  });
  test('a forged cursor is 400 invalid_cursor', async () => {
    problem(await call('GET', '/v1/event-types?cursor=abc'), 400, 'invalid_cursor');
  });
});

describe('GET and PATCH /v1/event-types/{name}', () => {
  test('GET answers the ETag; If-None-Match with it is 304; unknown is 404', async () => {
    const r = await call('GET', '/v1/event-types/invoice.paid');
    assert.equal(r.statusCode, 200);
    const again = await call('GET', '/v1/event-types/invoice.paid', undefined, {
      'if-none-match': String(r.headers.etag),
    });
    assert.equal(again.statusCode, 304);
    const service = await call('GET', '/v1/event-types/order.shipped');
    assert.equal(service.json().owner, 'service');
    problem(await call('GET', '/v1/event-types/no.such'), 404, 'not_found');
  });

  test('PATCH needs If-Match (428), a current one (412); 404 for unknown; 403 for the service types', async () => {
    problem(
      await call('PATCH', '/v1/event-types/invoice.paid', { description: 'x' }),
      428,
      'precondition_required',
    );
    problem(
      await call('PATCH', '/v1/event-types/invoice.paid', { description: 'x' }, { 'if-match': '"v99"' }),
      412,
      'precondition_failed',
    );
    problem(
      await call('PATCH', '/v1/event-types/no.such', { description: 'x' }, { 'if-match': '*' }),
      404,
      'not_found',
    );
    for (const name of ['order.shipped', 'webhook.test']) {
      problem(
        await call('PATCH', `/v1/event-types/${name}`, { deprecated: true }, { 'if-match': '*' }),
        403,
        'service_event_type',
      );
    }
  });

  test('deprecated: true is allowed; the ETag moves; the type stays publishable', async () => {
    const before = await call('GET', '/v1/event-types/zeta.created');
    const r = await patch('zeta.created', { deprecated: true });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().deprecated, true);
    assert.notEqual(r.headers.etag, before.headers.etag);
    problem(
      await call(
        'PATCH',
        '/v1/event-types/zeta.created',
        { description: 'y' },
        { 'if-match': String(before.headers.etag) },
      ),
      412,
      'precondition_failed',
    );
    assert.equal((await publish('zeta.created', invoice)).statusCode, 201);
  });

  test('examples that fail a new schema are 422, and nothing changes', async () => {
    const before = (await call('GET', '/v1/event-types/invoice.paid')).body;
    const schema = {
      ...invoiceSchema,
      properties: { ...invoiceSchema.properties, note: { type: 'string' } },
    };
    problem(await patch('invoice.paid', { schema, examples: [{ id: 'x' }] }), 422, 'invalid_event_example');
    assert.equal((await call('GET', '/v1/event-types/invoice.paid')).body, before);
  });
});

describe('compatibility modes: a breaking change refused, an additive one accepted, under each', () => {
  const base = {
    type: 'object',
    required: ['id', 'kind'],
    properties: {
      id: { type: 'string' },
      kind: { type: 'string', enum: ['a', 'b'] },
      opt: { type: 'string' },
    },
  };
  const example = { id: '1', kind: 'a' };
  const withProps = (props: Record<string, unknown>, required = base.required) => ({
    ...base,
    required,
    properties: { ...base.properties, ...props },
  });
  const addOptional = withProps({ extra: { type: 'integer' } });
  const addRequired = withProps({ extra: { type: 'integer' } }, ['id', 'kind', 'extra']);
  const removeOptional = { ...base, properties: { id: base.properties.id, kind: base.properties.kind } };
  const idOptional = { ...base, required: ['kind'] };
  const narrowEnum = withProps({ kind: { type: 'string', enum: ['a'] } });
  const retype = withProps({ id: { type: 'integer' } });

  // mode → [change, accepted?]
  const TABLE: Record<string, [string, unknown, boolean][]> = {
    full: [
      ['an optional field added', addOptional, true],
      ['a required field added', addRequired, false],
      ['a field removed', removeOptional, false],
      ['a field made optional', idOptional, false],
      ['an enum narrowed', narrowEnum, false],
    ],
    backward: [
      ['an optional field added', addOptional, true],
      ['a field removed', removeOptional, true],
      ['a field made optional', idOptional, true],
      ['a required field added', addRequired, false],
      ['an enum narrowed', narrowEnum, false],
    ],
    forward: [
      ['an optional field added', addOptional, true],
      ['a required field added', addRequired, true],
      ['an enum narrowed', narrowEnum, true],
      ['a field removed', removeOptional, false],
      ['a field made optional', idOptional, false],
    ],
    none: [
      ['a type changed', retype, true],
      ['a field removed', removeOptional, true],
    ],
  };
  let n = 0;
  for (const [mode, rows] of Object.entries(TABLE)) {
    for (const [what, schema, accepted] of rows) {
      test(`${mode}: ${what} is ${accepted ? 'accepted' : 'refused (409 breaking_change)'}`, async () => {
        const name = `compat.m${++n}`;
        const c = await call('POST', '/v1/event-types', {
          name,
          description: 'x',
          schema: base,
          examples: [example],
          compatibility: mode,
        });
        assert.equal(c.statusCode, 201, c.body);
        // Examples that fit the new schema, so that only the compatibility check decides.
        const fitting =
          schema === addRequired
            ? { ...example, extra: 1 }
            : schema === retype
              ? { id: 1, kind: 'a' }
              : example;
        const r = await patch(name, { schema, examples: [fitting] });
        if (accepted) {
          assert.equal(r.statusCode, 200, r.body);
          assert.equal(r.json().version, 2);
        } else {
          const p = problem(r, 409, 'breaking_change') as unknown as {
            changes: { kind: string; path: string }[];
            compatibility: string;
          };
          assert.equal(p.compatibility, mode);
          assert.ok(p.changes.length > 0);
          assert.match(r.json().detail, new RegExp(`${name}\\.v2`));
          assert.equal((await call('GET', `/v1/event-types/${name}`)).json().version, 1);
        }
      });
    }
  }

  test('transitive: a change is checked against every schema since the mode was set, not only the last', async () => {
    const name = 'compat.transitive';
    assert.equal(
      (
        await call('POST', '/v1/event-types', {
          name,
          description: 'x',
          schema: base,
          examples: [example],
          compatibility: 'backward',
        })
      ).statusCode,
      201,
    );
    // v1 → v2 removes `opt` (fine for backward); v2 → v3 brings it back as an integer: against v2
    // an optional field added, against v1 a type change, which receivers of v3 would choke on when
    // a v1 event is replayed.
    assert.equal((await patch(name, { schema: removeOptional })).statusCode, 200);
    const back = withProps({ opt: { type: 'integer' } });
    const r = problem(await patch(name, { schema: back }), 409, 'breaking_change') as unknown as {
      changes: { kind: string; againstVersion: number }[];
    };
    assert.deepEqual(
      r.changes.map((c) => [c.kind, c.againstVersion]),
      [['type-changed', 1]],
    );
    // Setting a mode starts the check afresh from the schema in force.
    assert.equal((await patch(name, { compatibility: 'full' })).statusCode, 200);
    assert.equal((await patch(name, { compatibility: 'backward' })).statusCode, 200);
    assert.equal((await patch(name, { schema: back })).statusCode, 200);
  });

  // Issue 30, N6: v1 {a, b} → v2 {a} → v3 {a, f0?} was refused as "/b was renamed to f0" (a removed
  // field and an added one of the same schema were paired as a rename). An optional field is
  // additive in every mode.
  test('backward: after a removal, an optional field of the same type can be added', async () => {
    const name = 'compat.readd';
    const schema = (props: Record<string, unknown>, required: string[]) => ({
      type: 'object',
      required,
      properties: props,
    });
    const v1 = schema({ a: { type: 'string' }, b: { type: 'string' } }, ['a', 'b']);
    const res = await call('POST', '/v1/event-types', {
      name,
      description: 'x',
      schema: v1,
      examples: [{ a: 'x', b: 'y' }],
      compatibility: 'backward',
    });
    assert.equal(res.statusCode, 201, res.body);
    const v2 = schema({ a: { type: 'string' } }, ['a']);
    assert.equal((await patch(name, { schema: v2, examples: [{ a: 'x' }] })).statusCode, 200);
    const v3 = schema({ a: { type: 'string' }, f0: { type: 'string' } }, ['a']);
    const r3 = await patch(name, { schema: v3, examples: [{ a: 'x' }] });
    assert.equal(r3.statusCode, 200, r3.body);
    // A required field of the same type is still a new required field to v1 and v2 events.
    const v4 = schema({ a: { type: 'string' }, f0: { type: 'string' }, f1: { type: 'string' } }, ['a', 'f1']);
    problem(await patch(name, { schema: v4, examples: [{ a: 'x', f1: 'z' }] }), 409, 'breaking_change');
  });
});

describe('publishing', () => {
  test("a tenant type's payload is validated: 422 invalid_event naming the path; a valid one is published", async () => {
    const r = await publish('invoice.paid', { ...invoice, amount: 'ten' });
    const p = problem(r, 422, 'invalid_event') as unknown as { errors: { path: string }[] };
    assert.deepEqual(
      p.errors.map((e) => e.path),
      ['/amount'],
    );
    problem(await publish('invoice.paid', { ...invoice, undocumented: true }), 422, 'invalid_event');
    const ok = await publish('invoice.paid', invoice);
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().type, 'invoice.paid');
  });

  test("another tenant's type is unknown to this one (422 as before)", async () => {
    const r = problem(await publish('invoice.paid', invoice, 'globex'), 422, 'invalid_event') as unknown as {
      errors: { path: string }[];
    };
    assert.deepEqual(
      r.errors.map((e) => e.path),
      ['/type'],
    );
    problem(await publish('never.registered', {}), 422, 'invalid_event');
  });

  test('the reserved types are 403 reserved_event_type, and nothing is written', async () => {
    const events = await t.count('webhook_events');
    for (const type of [
      'endpoint.disabled',
      'webhook.test',
      'endpoint.circuit_opened',
      'endpoint.circuit_closed',
      'endpoint.backlog_exceeded',
      'endpoint.backlog_cleared',
      'endpoint.secret_expiring',
      'delivery.failed',
    ]) {
      problem(await publish(type, {}), 403, 'reserved_event_type');
    }
    assert.equal(await t.count('webhook_events'), events);
    // The service's other types stay publishable.
    const sample = (await call('GET', '/v1/event-types/order.shipped')).json().examples[0];
    assert.equal((await publish('order.shipped', sample)).statusCode, 201);
  });

  test('a new schema applies at once: the validator is per version', async () => {
    const name = 'invoice.versioned';
    assert.equal((await create(name)).statusCode, 201);
    problem(await publish(name, { ...invoice, extra: 1 }), 422, 'invalid_event');
    const schema = {
      ...invoiceSchema,
      properties: { ...invoiceSchema.properties, extra: { type: 'integer' } },
    };
    assert.equal((await patch(name, { schema })).statusCode, 200);
    assert.equal((await publish(name, { ...invoice, extra: 1 })).statusCode, 201);
  });
});

describe('GET /v1/asyncapi.json', () => {
  test("the tenant's contract: the service's types and the tenant's; @asyncapi/parser finds no error", async () => {
    problem(await t.app.inject({ url: '/v1/asyncapi.json' }), 401, 'unauthorized');
    const r = await call('GET', '/v1/asyncapi.json');
    assert.equal(r.statusCode, 200, r.body.slice(0, 500));
    const doc = r.json();
    const messages = Object.keys(doc.components.messages);
    for (const n of ['order.shipped', 'endpoint.disabled', 'invoice.paid', 'zeta.created'])
      assert.ok(messages.includes(n), n);
    assert.equal(doc.components.messages['zeta.created'].deprecated, true);
    const { diagnostics } = await new Parser().parse(r.body);
    // As for the service's own document (packages/events/src/asyncapi.test.ts): no error, no
    // warning; the one information is that AsyncAPI 3.1 exists.
    const errors = diagnostics.filter((d) => d.severity <= 1 || d.code !== 'asyncapi-latest-version');
    assert.deepEqual(
      errors.map((d) => `${d.code} ${d.path.join('.')}: ${d.message}`),
      [],
    );
    const other = (await call('GET', '/v1/asyncapi.json', undefined, {}, 'globex')).json();
    assert.ok(!Object.keys(other.components.messages).includes('invoice.paid'));
  });
});
