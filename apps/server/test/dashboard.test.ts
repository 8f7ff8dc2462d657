// The dashboard: its static files and headers (no browser), then the real service in headless Chromium
// (Debian's package, driven by playwright-core): sign in, open a failed delivery, see its attempt,
// replay it, see the new attempt appear; keyboard only; a 375 px viewport without sideways scrolling.
// Screenshots go to .tmp/dashboard/; UPDATE_SCREENSHOTS=1 also refreshes docs/dashboard.png.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DASHBOARD_CSP } from '../src/dashboard/index.js';
import { launchBrowser, chromiumSkip as skip } from './browser.js';
import { auth, createTestApp, KEYS, newKey, PAYMENT, postPayment, type TestApp } from './helpers.js';

const ROOT = new URL('../../../', import.meta.url);
const SHOTS = new URL('.tmp/dashboard/', ROOT);
// Chromium's launch and every wait for the page: seconds on a loaded CI machine, never a minute.
const WAIT = 30_000;

describe('dashboard files', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('the page, its script and styles are public, typed, and under a strict CSP', async () => {
    for (const [url, type] of [
      ['/dashboard', 'text/html'],
      ['/dashboard/', 'text/html'],
      ['/ui/dashboard/app.js', 'text/javascript'],
      ['/ui/shared/api.js', 'text/javascript'],
      ['/ui/shared/styles.css', 'text/css'],
      ['/ui/shared/favicon.svg', 'image/svg+xml'],
    ] as const) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.ok(
        String(res.headers['content-type']).startsWith(type),
        `${url}: ${res.headers['content-type']}`,
      );
      assert.equal(res.headers['content-security-policy'], DASHBOARD_CSP);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const again = await t.app.inject({ url, headers: { 'if-none-match': String(res.headers.etag) } });
      assert.equal(again.statusCode, 304, `${url} revalidates`);
    }
    assert.match(DASHBOARD_CSP, /default-src 'self'/);
    assert.doesNotMatch(DASHBOARD_CSP, /unsafe-inline|unsafe-eval/);
    const html = (await t.app.inject({ url: '/dashboard' })).body;
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    assert.doesNotMatch(html, /\sstyle=|\son[a-z]+=/i, 'no inline style or handler');
    for (const url of [
      '/dashboard/nope.js',
      '/dashboard/app.js',
      '/ui/shared/nope.js',
      '/ui/shared/types.d.ts',
      '/ui/tsconfig.json',
      '/ui/dashboard/index.html',
      '/ui/../package.json',
      '/ui/shared/..%2F..%2Fpackage.json',
      '/dashboard/../package.json',
    ]) {
      assert.equal((await t.app.inject({ url })).statusCode, 404, url);
    }
    assert.equal(
      (await t.app.inject({ url: '/v1/webhook-endpoints' })).statusCode,
      401,
      'the API is not public',
    );
    const openapi = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: object };
    assert.ok(!Object.keys(openapi.paths).some((p) => p.startsWith('/dashboard')), 'hidden from OpenAPI');
  });
});

describe('dashboard in headless Chromium', { skip }, () => {
  let t: TestApp;
  let base: string;
  let worker: DeliveryWorker;
  let browser: Browser;
  let context: BrowserContext;
  const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
  const offsite: string[] = [];
  const pageErrors: string[] = [];
  let failing: Awaited<ReturnType<typeof startReceiver>>;

  const api = (app: FastifyInstance, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
    app.inject({
      method,
      url,
      headers: {
        ...auth('acme'),
        ...(method === 'POST' ? { 'idempotency-key': newKey() } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  async function endpoint(url: string, description: string, eventTypes = ['*'], applicationId?: string) {
    const res = await api(t.app, 'POST', '/v1/webhook-endpoints', {
      url,
      eventTypes,
      description,
      ...(applicationId ? { applicationId } : {}),
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string };
  }

  before(async () => {
    t = await createTestApp();
    // Real time, so "2 min ago" and the ordering of events read as they would in production.
    Object.defineProperty(t.clock, 'now', { get: () => Date.now(), set: () => {} });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // No retries: the first failure is final, so the delivery shows as failed at once.
    worker = new DeliveryWorker({
      webhooks: t.app.webhooks,
      listen: false,
      random: () => 0,
      schedule: [],
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    failing = await startReceiver((_r, _n, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":"ledger database unavailable"}');
    });
    const healthy = await startReceiver((_r, _n, res) => void res.writeHead(204).end());
    const gone = await startReceiver((_r, _n, res) => void res.writeHead(410).end());
    receivers.push(failing, healthy, gone);
    await endpoint(failing.url, 'Billing service', ['payment.created']);
    await endpoint(healthy.url, 'Analytics pipeline');
    await endpoint(gone.url, 'Legacy CRM', ['order.created']);

    const order = { customerId: 'cus_42', items: [{ sku: 'sku_mug', quantity: 2 }] };
    assert.equal((await api(t.app, 'PUT', '/v1/orders/ord_1001', order)).statusCode, 201);
    const paid = await postPayment(t.app, PAYMENT, { 'idempotency-key': newKey() });
    assert.equal(paid.statusCode, 201, paid.body);
    await worker.drain();
    assert.equal(failing.received.length, 1, 'the billing endpoint was tried once');

    ({ browser, context } = await launchBrowser({ width: 1280, waitMs: WAIT, offsite, pageErrors }));
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await t?.close();
  });

  async function signIn(page: Page) {
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('API key').fill(KEYS.acme);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoints' }).waitFor();
  }

  async function shot(page: Page, name: string, fullPage = true) {
    await page.mouse.move(0, 0); // no hover highlight in the picture
    await page.screenshot({ path: new URL(name, SHOTS).pathname, fullPage });
  }

  test('a wrong key is refused with the service’s own message', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('API key').fill('sk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'The API key is not valid.' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.close();
  });

  test('sign in, open the failed delivery, see its attempt, replay, see the new attempt appear', async () => {
    const page = await context.newPage();
    await signIn(page);
    assert.ok(!page.url().includes(KEYS.acme), 'the key is never in the URL');
    const billing = page.locator('li.endpoint-card', { hasText: 'Billing service' });
    await billing.getByText('0 %').waitFor();
    await page
      .locator('li.endpoint-card', { hasText: 'Legacy CRM' })
      .getByText(/Disabled: .*410/)
      .waitFor();
    await shot(page, 'overview.png');

    await billing.getByRole('link', { name: 'Billing service' }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing service' }).waitFor();
    await page.getByLabel('Show').selectOption('failed');
    const failedRow = page.locator('tr[data-status="failed"]');
    await failedRow.getByRole('link', { name: 'payment.created' }).click();

    await page.getByRole('heading', { level: 1, name: 'payment.created' }).waitFor();
    const selected = page.locator('li.delivery[aria-current="true"]');
    await selected
      .locator('tr.attempt[data-status="500"]')
      .getByText('ledger database unavailable')
      .waitFor();
    await shot(page, 'event-failed.png');

    failing.behaviour = (_r, _n, res) => void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    await selected.getByRole('button', { name: 'Replay to this endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Replay queued: 1 new delivery' }).waitFor();
    await page.locator('li.delivery[data-status="pending"]', { hasText: 'Billing service' }).waitFor();
    await worker.drain();
    assert.equal(failing.received.length, 2, 'the replay reached the receiver');
    // The page polls while a delivery is pending: the new attempt appears without a reload.
    const replayed = page.locator('li.delivery[data-status="delivered"]', { hasText: 'Billing service' });
    await replayed.locator('tr.attempt[data-status="200"]').waitFor();
    await replayed.getByText('Delivered').waitFor();
    await shot(page, 'event-replayed.png');
    await page.close();
  });

  test('recover re-queues the failed delivery; a disabled endpoint says why and can be re-enabled', async () => {
    const page = await context.newPage();
    await signIn(page);
    await page.locator('li.endpoint-card', { hasText: 'Billing service' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Billing service' }).waitFor();
    // The default "since" is 24 hours ago, which covers the delivery that failed before the replay.
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByRole('status').filter({ hasText: '1 failed delivery queued again.' }).waitFor();
    await worker.drain();
    await page.getByLabel('Show').selectOption('failed');
    await page.getByText('No failed deliveries.').waitFor();

    await page.getByRole('link', { name: 'Endpoints', exact: true }).first().click();
    await page.locator('li.endpoint-card', { hasText: 'Legacy CRM' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Legacy CRM' }).waitFor();
    await page
      .locator('.callout')
      .getByText(/410 Gone/)
      .waitFor();
    await page.getByRole('button', { name: 'Re-enable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint re-enabled.' }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).waitFor();
    const listed = (await api(t.app, 'GET', '/v1/webhook-endpoints?limit=100')).json() as {
      data: { description: string; status: string }[];
    };
    assert.equal(listed.data.find((e) => e.description === 'Legacy CRM')?.status, 'enabled');
    await page.close();
  });

  test('the add form says a URL the service refuses next to the field, in the service’s words', async () => {
    const page = await context.newPage();
    await signIn(page);
    const form = page.getByRole('region', { name: 'Add an endpoint' });
    await form.getByText('New endpoint').click();
    await form.getByLabel('URL').fill('http://10.0.0.1/hook');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form
      .locator('.field-error')
      .getByText(/refused this URL: .*10\.0\.0\.1 is a private address/)
      .waitFor();
    assert.equal(await form.getByLabel('URL').getAttribute('aria-invalid'), 'true');
    await page.getByRole('alert').filter({ hasText: '10.0.0.1 is a private address' }).waitFor();
    const listed = (await api(t.app, 'GET', '/v1/webhook-endpoints?limit=100')).json() as {
      data: { url: string }[];
    };
    assert.ok(!listed.data.some((e) => e.url.includes('10.0.0.1')), 'nothing was created');
    await page.close();
  });

  test('the add form creates a poll endpoint: no URL, a Poll badge, and where it is read', async () => {
    const page = await context.newPage();
    await signIn(page);
    const form = page.getByRole('region', { name: 'Add an endpoint' });
    await form.getByText('New endpoint').click();
    await form.getByLabel('Kind').selectOption('poll');
    assert.equal(await form.getByLabel('URL').isVisible(), false, 'a poll endpoint has no URL');
    await form.getByLabel('Description (optional)').fill('Pull consumer');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const card = page.locator('li.endpoint-card', { hasText: 'Pull consumer' });
    await card.getByText('Poll', { exact: true }).waitFor();
    const listed = (await api(t.app, 'GET', '/v1/webhook-endpoints?limit=100')).json() as {
      data: { description: string; kind: string; url: string }[];
    };
    const created = listed.data.find((e) => e.description === 'Pull consumer');
    assert.deepEqual([created?.kind, created?.url], ['poll', '']);
    await card.getByRole('link').click();
    await page.getByText(/read by its consumer: GET \/v1\/webhook-endpoints\/we_/).waitFor();
    await page.close();
    // Gone again: the other tests see the endpoints they made.
    const id = (created as unknown as { id: string }).id;
    const gone = await t.app.inject({
      method: 'DELETE',
      url: `/v1/webhook-endpoints/${id}`,
      headers: auth('acme'),
    });
    assert.equal(gone.statusCode, 204, gone.body);
  });

  test('an endpoint whose circuit breaker is open says so on its card and its page', async () => {
    const breaker = (set: string) =>
      t.db.sql.query(
        `update "${t.db.schema}".webhook_endpoints set ${set}
          where tenant = 'acme' and description = 'Analytics pipeline'`,
      );
    await breaker(
      "circuit_failures = 12, circuit_opened_at = now() - interval '1 minute', circuit_probe_at = now() + interval '2 minutes'",
    );
    try {
      const page = await context.newPage();
      await signIn(page);
      const card = page.locator('li.endpoint-card', { hasText: 'Analytics pipeline' });
      await card.getByText('Circuit open').waitFor();
      await card.getByRole('link').click();
      await page.getByRole('heading', { level: 1, name: 'Analytics pipeline' }).waitFor();
      await page
        .locator('.callout[data-circuit="open"]')
        .getByText(/12 failed attempts in a row/)
        .waitFor();
      await page.close();
    } finally {
      await breaker('circuit_failures = 0, circuit_opened_at = null, circuit_probe_at = null');
    }
  });

  test('settings: saved with If-Match; a change made elsewhere is not overwritten; delete asks first', async () => {
    const healthy = receivers[1]!;
    const { id } = await endpoint(healthy.url, 'Warehouse sync', ['order.created']);
    const read = async () => {
      const res = await api(t.app, 'GET', `/v1/webhook-endpoints/${id}`);
      return { status: res.statusCode, etag: String(res.headers.etag), body: res.json() };
    };
    const page = await context.newPage();
    await signIn(page);
    await page.locator('li.endpoint-card', { hasText: 'Warehouse sync' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Warehouse sync' }).waitFor();
    const settings = page.getByRole('region', { name: 'Settings' });
    const rate = settings.getByLabel('Rate limit (deliveries per second)');
    assert.equal(await settings.getByLabel('Event types').inputValue(), 'order.created');
    await settings.getByLabel('Description').fill('Warehouse sync v2');
    await settings.getByLabel('Event types').fill('order.created, order.shipped');
    await rate.fill('50');
    await settings.getByLabel('Filter (JSON)').fill('{"data.items.quantity": {"$gte": 2}}');
    await settings.scrollIntoViewIfNeeded();
    await shot(page, 'settings.png');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint updated.' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Warehouse sync v2' }).waitFor();
    let now = await read();
    assert.deepEqual(
      { description: now.body.description, eventTypes: now.body.eventTypes, rateLimit: now.body.rateLimit },
      { description: 'Warehouse sync v2', eventTypes: ['order.created', 'order.shipped'], rateLimit: 50 },
    );
    assert.deepEqual(now.body.filter, { 'data.items.quantity': { $gte: 2 } });
    await page.locator('dd code', { hasText: '"data.items.quantity"' }).waitFor();

    // Another client renames it while the form is open; the form's next save must not undo that.
    const elsewhere = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhook-endpoints/${id}`,
      headers: { ...auth('acme'), 'content-type': 'application/json', 'if-match': now.etag },
      payload: JSON.stringify({ description: 'Renamed elsewhere' }),
    });
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
    await rate.fill('');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'changed elsewhere' }).waitFor();
    assert.equal(await settings.getByLabel('Description').inputValue(), 'Renamed elsewhere');
    assert.equal(await rate.inputValue(), '50', 'the form shows what is stored');
    await page.getByRole('heading', { level: 1, name: 'Renamed elsewhere' }).waitFor();
    now = await read();
    assert.equal(now.body.rateLimit, 50, 'the stale save changed nothing');

    // Bad input: the service's own message, nothing changed.
    const filter = settings.getByLabel('Filter (JSON)');
    await filter.fill('{"data.items.quantity": ');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'The filter is not JSON' }).waitFor();
    await filter.fill('{"data.itemz": 1}');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'no field data.itemz' }).waitFor();
    assert.deepEqual((await read()).body.filter, { 'data.items.quantity': { $gte: 2 } });
    await filter.fill('{"data.items.quantity": {"$gte": 2}}');
    await rate.fill('2.5');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'whole number' }).waitFor();
    await settings.getByLabel('URL').fill('http://10.0.0.1/hook');
    await rate.fill('50');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: '10.0.0.1 is a private address' }).waitFor();
    assert.equal((await read()).body.url, healthy.url);
    await settings.getByLabel('URL').fill(healthy.url);

    // A press clears the last message: the error above is gone once "Delete endpoint…" is pressed
    // (which says nothing itself). It asks first; Cancel keeps the endpoint.
    await page.getByRole('button', { name: 'Delete endpoint…' }).click();
    await page.getByRole('button', { name: 'Delete permanently' }).waitFor();
    assert.equal(await page.locator('#alert').textContent(), '', 'the earlier error is gone');
    await shot(page, 'delete-confirm.png');
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    assert.equal((await read()).status, 200);

    // Disable with a reason: the page says why, and offers to re-enable.
    await page.getByLabel('Reason (optional)').fill('receiver migration');
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint disabled.' }).waitFor();
    await page.locator('.callout').getByText('by an operator: receiver migration').waitFor();
    await page.getByRole('button', { name: 'Re-enable endpoint' }).waitFor();
    assert.equal((await read()).body.status, 'disabled');

    // The disable made a new version, but not of the settings: an edit made in the form since is
    // saved on it, not refused as "changed elsewhere".
    await settings.getByLabel('Description').fill('Warehouse sync v3');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint updated.' }).waitFor();
    now = await read();
    assert.deepEqual(
      { description: now.body.description, status: now.body.status, rateLimit: now.body.rateLimit },
      { description: 'Warehouse sync v3', status: 'disabled', rateLimit: 50 },
    );

    await page.getByRole('button', { name: 'Delete endpoint…' }).click();
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoints' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Endpoint Warehouse sync v3 deleted.' }).waitFor();
    await page.locator('li.endpoint-card', { hasText: 'Billing service' }).waitFor();
    assert.equal(await page.locator('li.endpoint-card', { hasText: 'Warehouse sync' }).count(), 0);
    assert.equal((await read()).status, 404);
    await page.close();
  });

  test('applications: each with its endpoints; “Open portal” opens the customer’s page in a new tab', async () => {
    const made = await api(t.app, 'POST', '/v1/applications', { name: 'Initech', uid: 'cust_initech' });
    assert.equal(made.statusCode, 201, made.body);
    const initech = made.json() as { id: string };
    await endpoint(receivers[1]!.url, 'Initech orders', ['order.created'], initech.id);
    const page = await context.newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Applications', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Applications' }).waitFor();
    const card = page.locator(`li.application[data-application="${initech.id}"]`);
    await card.getByRole('heading', { name: 'Initech' }).waitFor();
    await card.getByText('cust_initech').waitFor();
    await card.getByRole('link', { name: 'Initech orders' }).waitFor();
    assert.equal(await card.getByText('Billing service').count(), 0, 'only its own endpoints');
    await shot(page, 'applications.png');

    const opened = context.waitForEvent('page');
    await card.getByRole('button', { name: 'Open portal', exact: true }).click();
    const portal = await opened;
    await portal.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    await portal.locator('li.endpoint-card', { hasText: 'Initech orders' }).waitFor();
    assert.equal(await portal.locator('li.endpoint-card').count(), 1, 'the application’s endpoints only');
    assert.ok(!portal.url().includes('token'), portal.url());
    assert.equal(await portal.evaluate(() => window.opener), null, 'no handle on the dashboard');
    await page.getByRole('status').filter({ hasText: 'Portal session for Initech opened' }).waitFor();
    await card.getByRole('link', { name: 'Open it here' }).waitFor();
    await portal.close();
    await page.close();
  });

  test('payments: the simulated provider is labelled; a payment shows its steps, a decline its code', async () => {
    const declined = await postPayment(
      t.app,
      { ...PAYMENT, paymentMethod: '4000000000009995' },
      { 'idempotency-key': newKey() },
    );
    assert.equal(declined.statusCode, 201, declined.body);
    const failedId = (declined.json() as { id: string }).id;
    const page = await context.newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Payments', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await page.locator('[data-provider="simulated"]').getByText('no real money moves').waitFor();
    const failedRow = page.locator('tr', { hasText: failedId });
    await failedRow.getByText('insufficient_funds').waitFor();
    await page.locator('tr', { hasText: 'succeeded' }).first().waitFor();
    await shot(page, 'payments.png');
    await failedRow.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: `Payment ${failedId}` }).waitFor();
    await page.locator('[data-provider="simulated"]').waitFor();
    const steps = page.locator('tr[data-step]');
    await steps.nth(2).waitFor();
    assert.deepEqual(await steps.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step'))), [
      'created',
      'charge',
      'failed',
    ]);
    await page.locator('tr[data-step="charge"]').getByText('insufficient_funds').waitFor();
    await shot(page, 'payment-steps.png');
    await page.close();
  });

  test('keyboard only: skip link, sign-in, an action button with a visible focus ring', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/dashboard`);
    // The key field has focus at once; typing and Enter sign in.
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'apiKey');
    // Back to the skip link (past the brand link): it shows when focused and leads into the page.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'skip-link');
    const box = await page.locator('#skip-link').boundingBox();
    assert.ok(box && box.y >= 0, 'the focused skip link is on screen');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'page-title');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'apiKey');
    await page.keyboard.type(KEYS.acme);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoints' }).waitFor();
    assert.equal(
      await page.evaluate(() => document.activeElement?.id),
      'page-title',
      'focus moves to the view',
    );

    const tabTo = async (match: (el: { tag: string; text: string }) => boolean, max = 40) => {
      for (let i = 0; i < max; i++) {
        await page.keyboard.press('Tab');
        const el = await page.evaluate(() => ({
          tag: document.activeElement?.tagName ?? '',
          text: document.activeElement?.textContent ?? '',
        }));
        if (match(el)) return el;
      }
      throw new Error('never reached by Tab');
    };
    await tabTo((el) => el.tag === 'A' && el.text === 'Billing service');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Billing service' }).waitFor();
    await tabTo((el) => el.tag === 'BUTTON' && el.text === 'Send test event');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused button shows a focus ring');
    await shot(page, 'keyboard-focus.png', false);
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /Test event evt_\S+ queued/ })
      .waitFor();

    await tabTo((el) => el.tag === 'BUTTON' && el.text === 'Rotate secret');
    await page.keyboard.press('Enter');
    const secret = page.getByRole('region', { name: 'New signing secret' });
    await secret.getByText(/^whsec_/).waitFor();
    await secret.getByText('it is shown only once').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'New signing secret');

    // Sign out forgets the key.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Surety' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('surety.apiKey')), null);
    await page.close();
  });

  test('375 px wide: no sideways scrolling on any view', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 375, height: 812 });
    const noSideScroll = async (what: string) => {
      const { scroll, width } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        width: document.documentElement.clientWidth,
      }));
      assert.ok(scroll <= width, `${what}: ${scroll}px of content in ${width}px`);
    };
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('API key').waitFor();
    await noSideScroll('sign-in');
    await signIn(page);
    await noSideScroll('endpoints');
    await shot(page, 'narrow-overview.png');
    await page.locator('li.endpoint-card', { hasText: 'Billing service' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Billing service' }).waitFor();
    await page.locator('tr[data-status]').first().waitFor();
    await noSideScroll('endpoint');
    await shot(page, 'narrow-endpoint.png');
    await page.locator('tr[data-status="delivered"]').first().getByRole('link').click();
    await page.locator('tr.attempt').first().waitFor();
    await noSideScroll('event');
    await shot(page, 'narrow-event.png');
    await page.getByRole('link', { name: 'Events', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await noSideScroll('events');
    await page.getByRole('link', { name: 'Payments', exact: true }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();
    await noSideScroll('payments');
    await page.locator('tr a[data-key^="pay-"]').first().click();
    await page.locator('tr[data-step]').first().waitFor();
    await noSideScroll('payment');
    await page.close();
  });

  test('no page errors, no CSP violations, nothing sent beyond 127.0.0.1', async () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(offsite, []);
    if (process.env.UPDATE_SCREENSHOTS) {
      copyFileSync(new URL('event-replayed.png', SHOTS), new URL('docs/dashboard.png', ROOT));
    }
  });
});
