// The service's HTTP transcript (issue 34): a fixed scenario of more than 100 requests through
// every resource (orders, inventory, payments, applications, endpoints, events, event types, the
// portal, the contracts) and its error paths (401, 404, 400, 412, 415, 422, 428, Idempotency-Key
// replays and mismatches), each answer normalised (ids, secrets, cursors, ETags and times numbered
// in order of first appearance; the date and request-id headers dropped) and compared byte for
// byte with scenario.golden.txt. A refactor changes no byte of it; an API change shows as its
// diff. SURETY_UPDATE_TRANSCRIPT=1 writes the file instead (review the diff: it is the change).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { auth, createTestApp, type TestApp } from '../helpers.js';

const GOLDEN = new URL('./scenario.golden.txt', import.meta.url);
const DROPPED = new Set(['date', 'x-request-id', 'content-length', 'connection', 'keep-alive']);

type Tenant = 'acme' | 'globex';
interface Step {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  tenant?: Tenant | null;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/** Numbers each distinct token of a kind in order of first appearance: the same scenario, the same text. */
class Normaliser {
  readonly #seen = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  #token(kind: string, value: string): string {
    const known = this.#seen.get(value);
    if (known) return known;
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    const name = `<${kind}${n}>`;
    this.#seen.set(value, name);
    return name;
  }
  text(s: string): string {
    return (
      s
        // ISO-8601 times (with or without fractions), then epoch seconds in signature headers
        .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g, '<time>')
        .replace(/\b[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\b/g, '<http-date>')
        .replace(/\bwhsec_[A-Za-z0-9+/=_-]+/g, (m) => this.#token('secret', m))
        .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, (m) =>
          this.#token('uuid', m),
        )
        // prefixed ids: we_…, evt_…, pay_…, app_…, del_…, ps_…, ch_…
        .replace(/\b[a-z]{2,6}_[A-Za-z0-9]{10,}\b/g, (m) => this.#token('id', m))
        // opaque tokens: cursors and portal tokens (long base64url runs)
        .replace(/[A-Za-z0-9_-]{40,}={0,2}/g, (m) => this.#token('opaque', m))
    );
  }
  /** The text with known tokens named and new ones left as `<new>`: a sort key that assigns nothing. */
  peek(s: string): string {
    return s.replace(/[A-Za-z0-9_-]{10,}/g, (m) => this.#seen.get(m) ?? '<new>');
  }
  etag(s: string): string {
    return this.#token('etag', s);
  }
}

function record(n: Normaliser, step: Step, res: LightMyRequestResponse): string {
  const lines = [
    `> ${step.method} ${n.text(step.url)}${step.tenant === null ? ' (no key)' : ` (${step.tenant ?? 'acme'})`}`,
  ];
  for (const [k, v] of Object.entries(step.headers ?? {}))
    lines.push(`> ${k}: ${(k === 'if-match' || k === 'if-none-match') && v !== '*' ? n.etag(v) : n.text(v)}`);
  if (step.raw !== undefined) lines.push(`> ${JSON.stringify(step.raw)}`);
  else if (step.body !== undefined) lines.push(`> ${n.text(JSON.stringify(step.body))}`);
  lines.push(`< ${res.statusCode}`);
  for (const k of Object.keys(res.headers).sort()) {
    if (DROPPED.has(k)) continue;
    const v = String(res.headers[k]);
    lines.push(`< ${k}: ${k === 'etag' ? n.etag(v) : n.text(v)}`);
  }
  if (res.body !== '') {
    let body = res.body;
    try {
      const parsed = JSON.parse(res.body) as { object?: unknown; data?: unknown };
      // A list's order among rows created in the same instant follows their random ids: rows are
      // recorded in the order of their normalised text, so the transcript does not depend on it.
      if (parsed.object === 'list' && Array.isArray(parsed.data)) {
        const keyed = parsed.data.map((row) => ({ row, key: n.peek(JSON.stringify(row)) }));
        parsed.data = keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((k) => k.row);
      }
      body = JSON.stringify(parsed, null, 1);
    } catch {}
    lines.push(n.text(body).slice(0, 4000));
  }
  return `${lines.join('\n')}\n`;
}

async function scenario(t: TestApp): Promise<string> {
  const n = new Normaliser();
  const out: string[] = [];
  let count = 0;
  const call = async (step: Step) => {
    const tenant = step.tenant === undefined ? 'acme' : step.tenant;
    const body = step.raw ?? (step.body === undefined ? undefined : JSON.stringify(step.body));
    const res = await t.app.inject({
      method: step.method,
      url: step.url,
      headers: {
        ...(tenant ? auth(tenant) : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...step.headers,
      },
      ...(body === undefined ? {} : { payload: body }),
    });
    count++;
    out.push(record(n, step, res));
    return res;
  };
  const key = (name: string) => ({ 'idempotency-key': `transcript-${name}` });
  const json = (res: LightMyRequestResponse) => res.json() as Record<string, unknown>;

  // --- authentication and malformed requests
  await call({ method: 'GET', url: '/v1/orders/ord_1', tenant: null });
  await call({
    method: 'GET',
    url: '/v1/orders/ord_1',
    headers: { authorization: 'Bearer sk_wrong' },
    tenant: null,
  });
  await call({ method: 'GET', url: '/v1/no-such-route' });
  await call({ method: 'POST', url: '/v1/payments', raw: '{"amount":', headers: key('bad-json') });
  await call({
    method: 'POST',
    url: '/v1/payments',
    raw: 'amount=1',
    headers: { ...key('form'), 'content-type': 'application/x-www-form-urlencoded' },
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '10', currency: 'USD' },
    headers: key('missing'),
  });

  // --- payments: keyed create, replay, mismatch, decline, list, read
  const pay = await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '1999', currency: 'USD', customerId: 'cus_1' },
    headers: key('pay-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '1999', currency: 'USD', customerId: 'cus_1' },
    headers: key('pay-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '2999', currency: 'USD', customerId: 'cus_1' },
    headers: key('pay-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '500', currency: 'EUR', customerId: 'cus_2', paymentMethod: '4000000000000002' },
    headers: key('pay-declined'),
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '700', currency: 'EUR', customerId: 'cus_2', paymentMethod: '4000000000009995' },
    headers: key('pay-funds'),
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '-1', currency: 'USD', customerId: 'cus_1' },
    headers: key('pay-negative'),
  });
  await call({
    method: 'POST',
    url: '/v1/payments',
    body: { amount: '100', currency: 'usd', customerId: 'cus_1' },
    headers: key('pay-currency'),
  });
  await call({ method: 'GET', url: '/v1/payments?customerId=cus_2' });
  await call({ method: 'GET', url: '/v1/payments?limit=1' });
  await call({ method: 'GET', url: `/v1/payments/${json(pay).id}` });
  await call({ method: 'GET', url: `/v1/payments/${json(pay).id}`, tenant: 'globex' });
  await call({ method: 'GET', url: '/v1/payments/pay_doesnotexist0000' });
  await call({ method: 'GET', url: '/v1/payments?cursor=garbage' });

  // --- orders: conditional create, read, 304, PATCH with and without If-Match, stale, ship
  const order = { customerId: 'cus_1', items: [{ sku: 'SKU-1', quantity: 2 }], metadata: { note: 'first' } };
  const created = await call({
    method: 'PUT',
    url: '/v1/orders/ord_transcript1',
    body: order,
    headers: { ...key('ord-1'), 'if-none-match': '*' },
  });
  const etag1 = String(created.headers.etag);
  await call({
    method: 'PUT',
    url: '/v1/orders/ord_transcript1',
    body: order,
    headers: { ...key('ord-1b'), 'if-none-match': '*' },
  });
  await call({ method: 'GET', url: '/v1/orders/ord_transcript1' });
  await call({ method: 'GET', url: '/v1/orders/ord_transcript1', headers: { 'if-none-match': etag1 } });
  await call({ method: 'GET', url: '/v1/orders/ord_transcript1', tenant: 'globex' });
  await call({
    method: 'PATCH',
    url: '/v1/orders/ord_transcript1',
    body: { metadata: { note: 'second' } },
    headers: key('ord-patch-noif'),
  });
  const patched = await call({
    method: 'PATCH',
    url: '/v1/orders/ord_transcript1',
    body: { metadata: { note: 'second' } },
    headers: { ...key('ord-patch'), 'if-match': etag1 },
  });
  await call({
    method: 'PATCH',
    url: '/v1/orders/ord_transcript1',
    body: { metadata: { note: 'stale' } },
    headers: { ...key('ord-patch-stale'), 'if-match': etag1 },
  });
  await call({
    method: 'PATCH',
    url: '/v1/orders/ord_transcript1',
    body: { metadata: { note: 'second' } },
    headers: { ...key('ord-patch'), 'if-match': etag1 },
  });
  await call({
    method: 'PATCH',
    url: '/v1/orders/ord_transcript1',
    body: { items: [] },
    headers: { ...key('ord-patch-empty'), 'if-match': String(patched.headers.etag) },
  });
  const shipped = await call({
    method: 'POST',
    url: '/v1/orders/ord_transcript1/ship',
    headers: { ...key('ord-ship'), 'if-match': String(patched.headers.etag) },
  });
  await call({
    method: 'POST',
    url: '/v1/orders/ord_transcript1/ship',
    headers: { ...key('ord-ship-2'), 'if-match': String(shipped.headers.etag) },
  });
  await call({
    method: 'PUT',
    url: '/v1/orders/ord_transcript1',
    body: { ...order, metadata: { note: 'replaced' } },
    headers: { ...key('ord-put'), 'if-match': String(shipped.headers.etag) },
  });
  await call({ method: 'GET', url: '/v1/orders/ord_missing' });

  // --- inventory: set, reserve past the stock, conditional read
  const sku = await call({
    method: 'PUT',
    url: '/v1/inventory/SKU-1',
    body: { quantity: 10 },
    headers: key('sku-1'),
  });
  await call({
    method: 'PUT',
    url: '/v1/inventory/SKU-1',
    body: { quantity: 5 },
    headers: key('sku-1-noif'),
  });
  await call({
    method: 'PUT',
    url: '/v1/inventory/SKU-1',
    body: { quantity: 5 },
    headers: { ...key('sku-1-if'), 'if-match': String(sku.headers.etag) },
  });
  await call({
    method: 'POST',
    url: '/v1/inventory/SKU-1/reservations',
    body: { quantity: 3 },
    headers: key('res-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/inventory/SKU-1/reservations',
    body: { quantity: 3 },
    headers: key('res-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/inventory/SKU-1/reservations',
    body: { quantity: 30 },
    headers: key('res-2'),
  });
  await call({
    method: 'POST',
    url: '/v1/inventory/SKU-1/reservations',
    body: { quantity: 0 },
    headers: key('res-3'),
  });
  await call({ method: 'GET', url: '/v1/inventory/SKU-1' });
  await call({ method: 'GET', url: '/v1/inventory/NOPE' });
  await call({ method: 'GET', url: '/v1/inventory/bad%20sku' });

  // --- applications
  const appRes = await call({
    method: 'POST',
    url: '/v1/applications',
    body: { uid: 'customer-1', name: 'Customer One', metadata: { plan: 'pro' } },
    headers: key('app-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/applications',
    body: { uid: 'customer-1', name: 'Customer One' },
    headers: key('app-1-dup'),
  });
  await call({
    method: 'POST',
    url: '/v1/applications',
    body: { uid: 'customer-2', name: 'Customer Two' },
    headers: key('app-2'),
  });
  const appId = String(json(appRes).id);
  await call({ method: 'GET', url: '/v1/applications' });
  await call({ method: 'GET', url: '/v1/applications?limit=1' });
  await call({ method: 'GET', url: `/v1/applications/${appId}` });
  await call({ method: 'GET', url: `/v1/applications/${appId}`, tenant: 'globex' });
  await call({
    method: 'PATCH',
    url: `/v1/applications/${appId}`,
    body: { name: 'Renamed' },
    headers: key('app-patch-noif'),
  });
  await call({
    method: 'PATCH',
    url: `/v1/applications/${appId}`,
    body: { name: 'Renamed' },
    headers: { ...key('app-patch'), 'if-match': String(appRes.headers.etag) },
  });
  await call({ method: 'GET', url: '/v1/applications?limit=0' });

  // --- event types and the contract
  const typeDef = {
    name: 'invoice.paid',
    description: 'An invoice was paid.',
    schema: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string' }, cents: { type: 'integer' } },
    },
    examples: [{ id: 'inv_1', cents: 100 }],
  };
  const typeRes = await call({
    method: 'POST',
    url: '/v1/event-types',
    body: typeDef,
    headers: key('type-1'),
  });
  await call({ method: 'POST', url: '/v1/event-types', body: typeDef, headers: key('type-1-dup') });
  await call({
    method: 'POST',
    url: '/v1/event-types',
    body: { ...typeDef, name: 'Bad Name' },
    headers: key('type-bad'),
  });
  await call({
    method: 'POST',
    url: '/v1/event-types',
    body: { ...typeDef, name: 'invoice.void', examples: [{ cents: 1 }] },
    headers: key('type-bad-example'),
  });
  await call({ method: 'GET', url: '/v1/event-types' });
  await call({ method: 'GET', url: '/v1/event-types/invoice.paid' });
  await call({
    method: 'PATCH',
    url: '/v1/event-types/invoice.paid',
    body: { description: 'Paid, in full.' },
    headers: { ...key('type-patch'), 'if-match': String(typeRes.headers.etag) },
  });
  await call({
    method: 'PATCH',
    url: '/v1/event-types/invoice.paid',
    body: {
      schema: {
        type: 'object',
        required: ['id', 'payer'],
        properties: { id: { type: 'string' }, payer: { type: 'string' } },
      },
    },
    headers: { ...key('type-breaking'), 'if-match': String(typeRes.headers.etag) },
  });
  await call({ method: 'GET', url: '/v1/event-types/invoice.unknown' });

  // --- endpoints: create (several shapes), read, list, update, rotate, disable, enable, test, delete
  const ep = await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['invoice.paid', 'order.shipped'],
      description: 'primary',
    },
    headers: key('ep-1'),
  });
  const epId = String(json(ep).id);
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['invoice.paid', 'order.shipped'],
      description: 'primary',
    },
    headers: key('ep-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: { url: 'http://127.0.0.1:9/app', eventTypes: ['*'], applicationId: appId },
    headers: key('ep-app'),
  });
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: {
      url: 'http://127.0.0.1:9/f',
      eventTypes: ['invoice.paid'],
      filter: { 'data.cents': { $gte: 100 } },
    },
    headers: key('ep-filter'),
  });
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: { url: 'http://10.0.0.1/hook', eventTypes: ['*'] },
    headers: key('ep-ssrf'),
  });
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: { url: 'not a url', eventTypes: ['*'] },
    headers: key('ep-invalid'),
  });
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: { url: 'http://127.0.0.1:9/h', eventTypes: ['*'], headers: { 'content-type': 'x' } },
    headers: key('ep-header'),
  });
  await call({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    body: { url: 'http://127.0.0.1:9/h', eventTypes: ['*'], filter: { $where: 'x' } },
    headers: key('ep-bad-filter'),
  });
  await call({ method: 'GET', url: `/v1/webhook-endpoints/${epId}` });
  await call({ method: 'GET', url: `/v1/webhook-endpoints/${epId}`, tenant: 'globex' });
  await call({ method: 'GET', url: '/v1/webhook-endpoints' });
  await call({ method: 'GET', url: `/v1/webhook-endpoints?applicationId=${appId}` });
  await call({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${epId}`,
    body: { description: 'renamed' },
    headers: key('ep-patch-noif'),
  });
  const epPatched = await call({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${epId}`,
    body: { description: 'renamed', rateLimit: 10 },
    headers: { ...key('ep-patch'), 'if-match': String(ep.headers.etag) },
  });
  await call({
    method: 'PATCH',
    url: `/v1/webhook-endpoints/${epId}`,
    body: { description: 'stale' },
    headers: { ...key('ep-patch-stale'), 'if-match': String(ep.headers.etag) },
  });
  await call({
    method: 'POST',
    url: `/v1/webhook-endpoints/${epId}/rotate-secret`,
    body: { overlapSeconds: 3600 },
    headers: key('ep-rotate'),
  });
  await call({
    method: 'POST',
    url: `/v1/webhook-endpoints/${epId}/disable`,
    body: { reason: 'maintenance' },
    headers: key('ep-disable'),
  });
  await call({ method: 'POST', url: `/v1/webhook-endpoints/${epId}/enable`, headers: key('ep-enable') });
  await call({ method: 'POST', url: `/v1/webhook-endpoints/${epId}/test`, headers: key('ep-test') });
  await call({ method: 'GET', url: `/v1/webhook-endpoints/${epId}/deliveries` });

  // --- events: publish, replay, list, read, deliveries
  const ev = await call({
    method: 'POST',
    url: '/v1/events',
    body: { type: 'invoice.paid', data: { id: 'inv_9', cents: 250 } },
    headers: key('ev-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/events',
    body: { type: 'invoice.paid', data: { id: 'inv_9', cents: 250 } },
    headers: key('ev-1'),
  });
  await call({
    method: 'POST',
    url: '/v1/events',
    body: { type: 'invoice.paid', data: { cents: 250 } },
    headers: key('ev-invalid'),
  });
  await call({
    method: 'POST',
    url: '/v1/events',
    body: { type: 'invoice.paid', data: { id: 'inv_10', cents: 50 }, application: appId },
    headers: key('ev-app'),
  });
  await call({
    method: 'POST',
    url: '/v1/events',
    body: { type: 'no.such.type', data: {} },
    headers: key('ev-unknown'),
  });
  const evId = String(json(ev).id);
  await call({ method: 'GET', url: '/v1/events' });
  await call({ method: 'GET', url: '/v1/events?type=invoice.paid&limit=1' });
  await call({ method: 'GET', url: `/v1/events/${evId}` });
  await call({ method: 'GET', url: `/v1/events/${evId}`, tenant: 'globex' });
  await call({ method: 'GET', url: `/v1/events/${evId}/deliveries` });
  await call({
    method: 'POST',
    url: `/v1/events/${evId}/replay`,
    body: { endpointId: epId },
    headers: key('ev-replay'),
  });
  await call({
    method: 'POST',
    url: `/v1/events/${evId}/replay`,
    body: { endpointId: 'we_missing0000000' },
    headers: key('ev-replay-missing'),
  });
  await call({ method: 'GET', url: `/v1/webhook-endpoints/${epId}/deliveries?status=pending` });
  await call({ method: 'GET', url: '/v1/events?since=not-a-time' });

  // --- the portal
  const session = await call({
    method: 'POST',
    url: `/v1/applications/${appId}/portal-sessions`,
    body: { expiresInSeconds: 600 },
    headers: key('portal-1'),
  });
  await call({
    method: 'POST',
    url: `/v1/applications/${appId}/portal-sessions`,
    body: { expiresInSeconds: 600 },
    tenant: 'globex',
    headers: key('portal-globex'),
  });
  const settings = await call({ method: 'GET', url: '/v1/portal-settings' });
  await call({
    method: 'PUT',
    url: '/v1/portal-settings',
    body: { frameAncestors: ['https://app.example.com'] },
    headers: key('settings-noif'),
  });
  await call({
    method: 'PUT',
    url: '/v1/portal-settings',
    body: { frameAncestors: ['https://app.example.com'] },
    headers: { ...key('settings'), 'if-match': String(settings.headers.etag) },
  });
  await call({
    method: 'PUT',
    url: '/v1/portal-settings',
    body: { frameAncestors: ['javascript:alert(1)'] },
    headers: { ...key('settings-bad'), 'if-match': '*' },
  });
  const token = String(json(session).token ?? '');
  if (token) {
    await call({
      method: 'GET',
      url: '/v1/portal-session',
      tenant: null,
      headers: { authorization: `Bearer ${token}` },
    });
    await call({
      method: 'GET',
      url: '/v1/webhook-endpoints',
      tenant: null,
      headers: { authorization: `Bearer ${token}` },
    });
    await call({ method: 'DELETE', url: `/v1/portal-sessions/${json(session).id}` });
    await call({
      method: 'GET',
      url: '/v1/portal-session',
      tenant: null,
      headers: { authorization: `Bearer ${token}` },
    });
  }

  // --- contracts
  const doc = await t.app.inject({ method: 'GET', url: '/openapi.json' });
  count++;
  out.push(
    `> GET /openapi.json\n< ${doc.statusCode}\n< paths: ${Object.keys(doc.json().paths).sort().join(' ')}\n`,
  );
  const asyncapi = await t.app.inject({ method: 'GET', url: '/v1/asyncapi.json', headers: auth('acme') });
  count++;
  out.push(
    `> GET /v1/asyncapi.json\n< ${asyncapi.statusCode}\n< channels: ${Object.keys(
      asyncapi.json().channels ?? {},
    )
      .sort()
      .join(' ')}\n`,
  );

  // --- deletes last
  await call({ method: 'DELETE', url: `/v1/webhook-endpoints/${epId}` });
  await call({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${epId}`,
    headers: { 'if-match': String(epPatched.headers.etag) },
  });
  await call({ method: 'DELETE', url: `/v1/applications/${appId}`, headers: { 'if-match': '*' } });
  await call({ method: 'GET', url: `/v1/applications/${appId}` });

  assert.ok(count >= 100, `the scenario has ${count} requests; it promises at least 100`);
  return `# ${count} requests\n${out.join('\n')}`;
}

test('the HTTP transcript of the fixed scenario is byte-identical to scenario.golden.txt', async () => {
  const t = await createTestApp();
  t.clock.now = Date.parse('2026-06-01T00:00:00Z');
  let text: string;
  try {
    text = await scenario(t);
  } finally {
    await t.close();
  }
  if (process.env.SURETY_UPDATE_TRANSCRIPT === '1') {
    writeFileSync(GOLDEN, text);
    return;
  }
  let golden: string;
  try {
    golden = readFileSync(GOLDEN, 'utf8');
  } catch {
    assert.fail('no scenario.golden.txt: run with SURETY_UPDATE_TRANSCRIPT=1 and review it');
  }
  if (text === golden) return;
  // The first line that differs, with its neighbours; the whole transcript beside the golden file.
  const got = text.split('\n');
  const want = golden.split('\n');
  let i = 0;
  while (i < got.length && got[i] === want[i]) i++;
  const actual = join(tmpdir(), 'scenario.actual.txt');
  writeFileSync(actual, text);
  const around = (lines: string[]) => lines.slice(Math.max(0, i - 8), i + 3).join('\n');
  assert.fail(
    `the transcript differs at line ${i + 1} (the whole of it: ${actual})\n--- golden\n${around(want)}\n+++ now\n${around(got)}`,
  );
});
