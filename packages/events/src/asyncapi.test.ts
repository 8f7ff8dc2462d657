import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Parser } from '@asyncapi/parser';
import { parse as parseYaml } from 'yaml';
import { serviceEvents, serviceRegistry } from '../test/service-catalogue.js';
import { buildAsyncApi, serviceContract, toJson, toYaml } from './asyncapi.js';
import { contractValidator } from './contract-validator.js';
import { createRegistry } from './registry.js';

const registry = serviceRegistry();
const parser = new Parser();

// Diagnostics the generated document is allowed to have, each reviewed:
// - asyncapi-latest-version (information): 3.1.0 exists; the brief and our tooling target 3.0.0,
//   whose default schema format (a draft-07 superset) is what the registry's schemas are written in.
const REVIEWED = new Set(['asyncapi-latest-version']);

async function diagnose(doc: unknown) {
  const { document, diagnostics } = await parser.parse(JSON.stringify(doc));
  return {
    document,
    diagnostics: diagnostics.map((d) => ({
      code: String(d.code),
      severity: d.severity,
      path: d.path.join('/'),
      message: d.message,
    })),
  };
}

describe('buildAsyncApi', () => {
  it('takes a list of registered types as well as a registry: the same document, sorted by name', () => {
    const list = [...registry.list()].reverse();
    assert.deepEqual(buildAsyncApi(list), buildAsyncApi(registry));
    assert.deepEqual(serviceContract(list), serviceContract(registry));
  });

  it('parses with @asyncapi/parser: no errors, no warnings, only reviewed information', async () => {
    for (const doc of [
      serviceContract(registry),
      buildAsyncApi(registry, { serverUrl: 'https://api.example.com' }),
    ]) {
      const { document, diagnostics } = await diagnose(doc);
      assert.ok(document, 'parsed');
      const unexpected = diagnostics.filter((d) => d.severity <= 1 || !REVIEWED.has(d.code));
      assert.deepEqual(unexpected, []);
      assert.equal(document.messages().length, serviceEvents.length);
      assert.equal(document.operations().length, serviceEvents.length);
      assert.ok(
        document
          .operations()
          .all()
          .every((o) => o.isSend()),
      );
    }
  });

  it('is not vacuous: the parser reports a broken schema and a misrouted operation', async () => {
    const doc = structuredClone(serviceContract(registry));
    const message = doc.components!.messages!['order.shipped'] as {
      payload: { properties: { data: { type: unknown } } };
    };
    message.payload.properties.data.type = 42;
    (doc.operations!['payment.created'] as { messages: unknown[] }).messages = [
      { $ref: '#/components/messages/order.created' },
    ];
    const codes = new Set(
      (await diagnose(doc)).diagnostics.filter((d) => d.severity === 0).map((d) => d.code),
    );
    assert.deepEqual([...codes].sort(), [
      'asyncapi-document-resolved',
      'asyncapi3-operation-messages-from-referred-channel',
    ]);
    // Note: for 3.0 the parser does not check message examples against their schemas (there is no
    // v3 examples rule); the contractValidator test below does that.
  });

  it('parses as YAML too, to the same document', async () => {
    const doc = serviceContract(registry);
    const yaml = toYaml(doc);
    assert.deepEqual(parseYaml(yaml), doc);
    assert.ok(!yaml.includes('*a1') && !yaml.includes('&a1'), 'no YAML aliases');
    const { document, diagnostics } = await parser.parse(yaml);
    assert.ok(document);
    assert.deepEqual(
      diagnostics.filter((d) => d.severity <= 1),
      [],
    );
  });

  it('gives each message the envelope with its type fixed and its data schema', () => {
    const doc = serviceContract(registry);
    const m = doc.components!.messages!['order.shipped'] as {
      payload: { properties: Record<string, unknown>; required: string[] };
    };
    assert.deepEqual(m.payload.required, ['id', 'type', 'apiVersion', 'createdAt', 'sequence', 'data']);
    assert.deepEqual(m.payload.properties.type, {
      type: 'string',
      const: 'order.shipped',
      description: 'The event type.',
    });
    assert.deepEqual(m.payload.properties.data, registry.get('order.shipped')!.schema);
    assert.match(doc.info.description!, /At least once/);
    assert.match(doc.info.description!, /5s, 5m, 30m, 2h, 6h, 12h, 24h/);
  });

  it('is deterministic and does not depend on registration order', () => {
    const reversed = createRegistry({ events: [...serviceEvents].reverse() });
    assert.equal(toJson(serviceContract(reversed)), toJson(serviceContract(registry)));
  });

  it('puts the service URL in externalDocs only when given', () => {
    assert.equal(serviceContract(registry).info.externalDocs, undefined);
    const doc = buildAsyncApi(registry, { serverUrl: 'https://api.example.com/base' });
    assert.deepEqual(doc.info.externalDocs, {
      description: 'The management API: register endpoints, rotate secrets, list attempts, replay events.',
      url: 'https://api.example.com/base/docs',
    });
  });
});

describe('contractValidator', () => {
  const check = contractValidator(JSON.parse(toJson(serviceContract(registry))));

  it('accepts every example body of the document', () => {
    const doc = serviceContract(registry);
    for (const m of Object.values(doc.components!.messages!) as { examples: { payload: unknown }[] }[]) {
      assert.deepEqual(check(m.examples[0]!.payload), { kind: 'valid', ok: true });
    }
  });

  it('accepts fields it does not know (the document is open) and rejects what breaks it', () => {
    const body = {
      id: 'evt_1',
      type: 'webhook.test',
      apiVersion: '2026-11-01',
      createdAt: '2026-11-02T00:00:00Z',
      sequence: 1,
      data: { message: 'hi', endpointId: 'we_1', later: true },
      alsoLater: 1,
    };
    assert.deepEqual(check(body), { kind: 'valid', ok: true });
    const bad = check({ ...body, sequence: 0, data: { message: 'hi' } });
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.ok ? [] : bad.error.errors.map((e) => e.path).sort(), [
      '/data/endpointId',
      '/sequence',
    ]);
    const unknown = check({ ...body, type: 'nope.nope' });
    assert.equal(unknown.ok ? '' : unknown.error.code, 'SURETY_EVENT_UNKNOWN_TYPE');
  });
});
