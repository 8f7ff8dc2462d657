// The corpus of small documents: one that keeps every rule (0 findings), and one per rule that
// breaks that rule alone (caught, by that rule only, with a fix and a docs link).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BREAKERS, goodDocument } from '../test/fixtures.js';
import { lintText } from './lint.js';
import { DOCS, RULE_NAMES } from './ruleset.js';

const lintDoc = (doc: object) => lintText(JSON.stringify(doc, null, 2), { source: 'corpus.json' });

describe('the ruleset on the small corpus', () => {
  test('the document that keeps every rule has no finding', async () => {
    const report = await lintDoc(goodDocument());
    assert.deepEqual(report.findings, []);
  });

  test('every rule has a document that breaks it', () => {
    assert.deepEqual(BREAKERS.map((b) => b.rule).sort(), [...RULE_NAMES].sort());
  });

  for (const breaker of BREAKERS) {
    test(`${breaker.rule}: ${breaker.what} is caught, by that rule alone`, async () => {
      const doc = goodDocument();
      breaker.mutate(doc);
      const report = await lintDoc(doc);
      assert.deepEqual(
        report.findings.map((f) => f.rule),
        [breaker.rule],
        JSON.stringify(report.findings, null, 2),
      );
      const [f] = report.findings;
      assert.equal(f!.documentationUrl, `${DOCS}#${breaker.rule}`);
      assert.match(f!.message, /: (add|declare|state|mark|sign)/, 'the message says how to fix it');
      assert.ok(f!.line > 1);
    });
  }

  test('YAML documents, path-level parameters and 4XX ranges count', async () => {
    const yaml = `openapi: 3.0.3
info: { title: t, version: '1' }
paths:
  /charges:
    parameters:
      - { name: Idempotency-Key, in: header, description: 'Kept for 7 days.', schema: { type: string } }
    post:
      responses:
        '201': { description: ok }
        4XX: { description: error, content: { application/problem+json: { schema: { type: object } } } }
`;
    const report = await lintText(yaml, { source: 'charges.yaml' });
    assert.deepEqual(report.findings, []);
  });

  test('x-versioned: false says a path that shows an ETag is not a versioned resource', async () => {
    const doc = goodDocument();
    const orders = doc.paths['/orders/{id}'];
    orders.delete.parameters = [];
    delete orders.delete.responses['412'];
    assert.equal((await lintDoc(doc)).errors, 2);
    orders['x-versioned'] = false;
    orders.put.responses = { '200': { description: 'Replaced' } };
    orders.put.parameters = [];
    assert.deepEqual((await lintDoc(doc)).findings, []);
  });

  test('a Swagger 2.0 document is said to be outside the ruleset, not passed silently', async () => {
    const report = await lintText(
      JSON.stringify({ swagger: '2.0', info: { title: 't', version: '1' }, paths: {} }),
    );
    assert.deepEqual(
      report.findings.map((f) => f.rule),
      ['unrecognized-format'],
    );
  });
});

describe('versions in the body', () => {
  test('a write that sends the version it read in its body needs no If-Match header', async () => {
    const doc = goodDocument();
    const del = doc.paths['/orders/{id}'].delete;
    del.parameters = [];
    assert.deepEqual(
      (await lintDoc(doc)).findings.map((f) => f.rule),
      ['surety-write-if-match'],
    );
    del.requestBody = {
      content: {
        'application/json': {
          schema: {
            type: 'object',
            properties: {
              items: { type: 'array', items: { properties: { expected_version: { type: 'integer' } } } },
            },
          },
        },
      },
    };
    assert.deepEqual((await lintDoc(doc)).findings, []);
  });
});

describe('what makes a path a versioned resource', () => {
  test("the ETag of a POST's 201 names the created resource, not the collection", async () => {
    const doc = goodDocument();
    doc.paths['/payments'].post.responses['201'].headers = { ETag: { schema: { type: 'string' } } };
    doc.paths['/payments'].get = { responses: { '200': { description: 'The list' } } };
    assert.deepEqual((await lintDoc(doc)).findings, []);
  });
});

describe('surety-write-unversioned: writes of a resource that shows no version', () => {
  const unversioned = async (pathItem: object) => {
    const doc = goodDocument();
    (doc.paths as Record<string, object>)['/things/{id}'] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      ...pathItem,
    };
    const report = await lintDoc(doc);
    return report.findings.map((f) => `${f.rule} ${f.message.slice(0, f.message.indexOf(' changes'))}`);
  };
  const body = { content: { 'application/json': { schema: { type: 'object' } } } };
  const ok = { responses: { '200': { description: 'ok' } } };

  test('a PATCH, a PUT with a body and the DELETE beside them are each a finding', async () => {
    const findings = await unversioned({
      patch: { requestBody: body, ...ok },
      put: { requestBody: body, ...ok },
      delete: ok,
    });
    assert.deepEqual(findings.sort(), [
      'surety-write-unversioned DELETE /things/{id}',
      'surety-write-unversioned PATCH /things/{id}',
      'surety-write-unversioned PUT /things/{id}',
    ]);
  });

  test('no finding where a lost update cannot happen, or the document says so', async () => {
    // A toggle (PUT without a body: star, follow) and a DELETE of something never changed.
    assert.deepEqual(await unversioned({ put: ok, delete: ok }), []);
    // x-versioned: false, on the path or on the operation.
    assert.deepEqual(await unversioned({ 'x-versioned': false, patch: { requestBody: body, ...ok } }), []);
    assert.deepEqual(await unversioned({ patch: { 'x-versioned': false, requestBody: body, ...ok } }), []);
    // The version read, sent back in the body (GitHub's custom_pattern_version).
    const versionInBody = {
      content: { 'application/json': { schema: { properties: { lock_version: { type: 'integer' } } } } },
    };
    assert.deepEqual(await unversioned({ patch: { requestBody: versionInBody, ...ok } }), []);
  });

  test('a versioned resource is left to the If-Match rules', async () => {
    const findings = await unversioned({
      get: { responses: { '200': { description: 'ok', headers: { ETag: { schema: { type: 'string' } } } } } },
      patch: { requestBody: body, ...ok },
    });
    assert.ok(
      findings.length > 0 && findings.every((f) => !f.startsWith('surety-write-unversioned')),
      String(findings),
    );
  });
});
