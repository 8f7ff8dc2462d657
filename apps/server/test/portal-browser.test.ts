// The consumer portal in headless Chromium (Debian's package, driven by playwright-core), on the real
// service: a session link for application A opens A's endpoints only (B's ids answer 404, in the page
// and to the token itself); the token leaves the URL at once; the customer adds (a refused URL is
// said next to the field), edits (If-Match), disables, re-enables, rotates, tests and deletes an
// endpoint; reads the catalogue, the deliveries and their attempts, replays and recovers; a
// read-only session shows no write action; an expired or revoked session shows "session expired";
// markup in descriptions, payloads and receivers' answers is text; the page is framed by an allowed
// origin and refused by another. Screenshots go to .tmp/portal/; UPDATE_SCREENSHOTS=1 also refreshes
// the ones in docs/.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { serviceRegistry } from '../src/service-events.js';
import { launchBrowser, chromiumSkip as skip } from './browser.js';
import { auth, createTestApp, newKey, type TestApp } from './helpers.js';

const ROOT = new URL('../../../', import.meta.url);
const SHOTS = new URL('.tmp/portal/', ROOT);
const WAIT = 30_000;

/** Markup that would run if any of it were parsed as HTML: each sets a flag and opens a dialog. */
const XSS = {
  description: '<img src=x onerror="window.__xss=1;alert(1)"> Orders <script>alert(2)</script>',
  payload: '<script>window.__xss=1;alert(3)</script><img src=x onerror=alert(4)>',
  response: '<script>window.__xss=1;alert(5)</script><img src=x onerror=alert(6)>',
};

type Json = Record<string, unknown>;
/** A site of the tenant's: its origin, and `frame(link)` sets the portal link it frames (its URL). */
type Parent = { origin: string; frame: (link: string) => string };

describe('portal in headless Chromium', { skip }, () => {
  let t: TestApp;
  let base: string;
  let worker: DeliveryWorker;
  let browser: Browser;
  let context: BrowserContext;
  /** Added to the service's clock: sessions expire by it. */
  let skew = 0;
  const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
  const parents: Server[] = [];
  const offsite: string[] = [];
  const pageErrors: string[] = [];
  const dialogs: string[] = [];
  let appA: string;
  let appB: string;
  let failing: Awaited<ReturnType<typeof startReceiver>>;
  let epA1: string;
  let epB1: string;
  let eventA: string;
  let eventB: string;
  let allowed: Parent;
  let other: Parent;

  async function call(method: string, url: string, body?: unknown, headers: Json = {}) {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...auth('acme'),
        ...(method === 'POST' ? { 'idempotency-key': newKey() } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(headers as Record<string, string>),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return res;
  }
  async function created(url: string, body: unknown): Promise<Json> {
    const res = await call('POST', url, body);
    assert.ok(res.statusCode === 201 || res.statusCode === 200, `${url}: ${res.statusCode} ${res.body}`);
    return res.json() as Json;
  }

  /** A portal session for `app`; its link points at this test's server. */
  async function portalSession(app: string, body: Json = {}) {
    const s = (await created(`/v1/applications/${app}/portal-sessions`, body)) as {
      id: string;
      url: string;
      token: string;
    };
    const url = new URL(s.url, base);
    assert.ok(url.hash.includes(s.token), 'the token travels in the fragment');
    assert.ok(!url.pathname.includes(s.token) && !url.search.includes(s.token), 'never in path or query');
    return { ...s, link: `${base}${url.pathname}${url.search}${url.hash}` };
  }

  /**
   * Whether this build serves the event-type catalogue (GET /v1/event-types, the event-types branch
   * of issue 19): the portal's catalogue and its add form's type checkboxes read it.
   */
  /** A page that records dialogs (none may open: nothing shown is ever parsed as markup). */
  async function newPage(ctx: BrowserContext = context) {
    const page = await ctx.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    return page;
  }

  async function shot(page: Page, name: string, fullPage = true) {
    await page.mouse.move(0, 0);
    await page.screenshot({ path: new URL(name, SHOTS).pathname, fullPage });
  }

  /** A page on another origin (127.0.0.1, its own port) that frames `src`. */
  async function parentServer(): Promise<Parent> {
    let src = '';
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><title>Shop</title><h1>Acme Shop: webhooks</h1>` +
          `<iframe id="portal" title="Webhooks" src="${src}" width="1100" height="800"></iframe>`,
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    parents.push(server);
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      origin,
      frame: (link) => {
        src = link.replace(/"/g, '&quot;');
        return `${origin}/`;
      },
    };
  }

  before(async () => {
    t = await createTestApp();
    Object.defineProperty(t.clock, 'now', { get: () => Date.now() + skew, set: () => {} });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    worker = new DeliveryWorker({
      webhooks: t.app.webhooks,
      listen: false,
      random: () => 0,
      schedule: [],
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    failing = await startReceiver((_r, _n, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end(XSS.response);
    });
    const healthy = await startReceiver((_r, _n, res) => void res.writeHead(204).end());
    receivers.push(failing, healthy);

    // The customers and what they have, through the engine (the API's own routes for these are
    // tested in applications' and portal's tests; here they are the scene the browser is shown).
    const w = t.app.webhooks;
    const q = t.db.sql;
    appA = (await w.createApplication(q, { tenant: 'acme', name: 'Acme Stores', uid: 'cust_acme' })).id;
    appB = (await w.createApplication(q, { tenant: 'acme', name: 'Globex Retail', uid: 'cust_globex' })).id;
    const endpoint = async (url: string, description: string, applicationId: string, eventTypes = ['*']) =>
      (await w.createEndpoint(q, { tenant: 'acme', url, eventTypes, description, applicationId })).endpoint
        .id;
    epA1 = await endpoint(failing.url, XSS.description, appA, ['order.created']);
    await endpoint(healthy.url, 'Analytics pipeline', appA);
    epB1 = await endpoint(healthy.url, 'Globex private endpoint', appB);
    const order = structuredClone(serviceRegistry().get('order.created')!.sample) as Record<string, unknown>;
    eventA = (
      await w.publish(q, {
        tenant: 'acme',
        type: 'order.created',
        application: appA,
        data: { ...order, shippingAddress: XSS.payload },
      })
    ).id;
    eventB = (
      await w.publish(q, {
        tenant: 'acme',
        type: 'order.created',
        application: appB,
        data: { ...order, id: 'ord_2002' },
      })
    ).id;
    await worker.drain();
    assert.equal(failing.received.length, 1, "A's failing endpoint was tried once, B's event never");

    allowed = await parentServer();
    other = await parentServer();
    const settings = await call(
      'PUT',
      '/v1/portal-settings',
      { frameAncestors: [allowed.origin] },
      { 'if-match': '*' },
    );
    assert.equal(settings.statusCode, 200, settings.body);

    ({ browser, context } = await launchBrowser({ width: 1200, waitMs: WAIT, offsite, pageErrors }));
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await Promise.all(receivers.map((r) => r.close()));
    await Promise.all(parents.map((s) => new Promise((r) => s.close(r))));
    await t?.close();
  });

  test('the link opens A’s endpoints, and the token is gone from the URL at once', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    assert.ok(!page.url().includes(s.token), `the token left the URL: ${page.url()}`);
    assert.ok(!page.url().includes('token='), page.url());
    assert.equal(await page.evaluate(() => location.hash), '#/');
    const cards = page.locator('li.endpoint-card');
    await cards.filter({ hasText: 'Analytics pipeline' }).waitFor();
    // The description is shown as text, markup and all.
    await cards.filter({ hasText: XSS.description }).waitFor();
    assert.equal(
      await cards.filter({ hasText: 'Orders' }).getByRole('link').getAttribute('href'),
      `#/endpoints/${epA1}`,
    );
    assert.equal(await cards.count(), 2, 'A’s two endpoints, not B’s');
    assert.equal(await page.getByText('Globex private endpoint').count(), 0);
    await page.getByText('Acme Stores').first().waitFor();
    await shot(page, 'portal-endpoints.png');
    await page.close();
  });

  test('B’s ids answer 404, in the page and to the token itself', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    await page.evaluate((id) => {
      location.hash = `#/endpoints/${id}`;
    }, epB1);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
    await page.evaluate((id) => {
      location.hash = `#/events/${id}`;
    }, eventB);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();

    // The same token, by hand (as a script on the page could): every read and write of B's things
    // is a 404, and changes nothing.
    const send = async (method: string, url: string, body?: unknown, ifMatch?: string) =>
      (
        await fetch(`${base}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${s.token}`,
            'idempotency-key': newKey(),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(ifMatch ? { 'if-match': ifMatch } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        })
      ).status;
    const statuses = {
      get: await send('GET', `/v1/webhook-endpoints/${epB1}`),
      patch: await send('PATCH', `/v1/webhook-endpoints/${epB1}`, { description: 'pwned' }, '"1"'),
      disable: await send('POST', `/v1/webhook-endpoints/${epB1}/disable`, {}),
      enable: await send('POST', `/v1/webhook-endpoints/${epB1}/enable`, {}),
      rotate: await send('POST', `/v1/webhook-endpoints/${epB1}/rotate-secret`, {}),
      test: await send('POST', `/v1/webhook-endpoints/${epB1}/test`, {}),
      recover: await send('POST', `/v1/webhook-endpoints/${epB1}/recover`, {
        since: new Date(0).toISOString(),
      }),
      deliveries: await send('GET', `/v1/webhook-endpoints/${epB1}/deliveries`),
      delete: await send('DELETE', `/v1/webhook-endpoints/${epB1}`, undefined, '"1"'),
      event: await send('GET', `/v1/events/${eventB}`),
      eventDeliveries: await send('GET', `/v1/events/${eventB}/deliveries`),
      replay: await send('POST', `/v1/events/${eventB}/replay`, {}),
      replayToB: await send('POST', `/v1/events/${eventA}/replay`, { endpointId: epB1 }),
    };
    for (const [what, status] of Object.entries(statuses)) assert.equal(status, 404, what);
    const b = (await call('GET', `/v1/webhook-endpoints/${epB1}`)).json() as Json;
    assert.deepEqual(
      { description: b.description, status: b.status },
      { description: 'Globex private endpoint', status: 'enabled' },
    );
    await page.close();
  });

  test('add (a refused URL said at the field), edit with If-Match, disable, enable, rotate, test, delete', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    const form = page.getByRole('region', { name: 'Add an endpoint' });
    await form.getByText('New endpoint').click();
    await form.getByLabel('URL').fill('http://169.254.169.254/latest');
    // The catalogue's types as checkboxes; a build without the catalogue has the dashboard's field.
    await form.getByRole('checkbox', { name: 'order.shipped' }).check();
    await form.getByLabel('Description (optional)').fill('Fulfilment');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form
      .locator('.field-error')
      .getByText(/refused this URL/)
      .waitFor();
    await form.scrollIntoViewIfNeeded();
    await shot(page, 'portal-add-refused.png', false);
    await form.getByLabel('URL').fill(receivers[1]!.url);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = page.getByRole('region', { name: 'New signing secret' });
    await secret.getByText(/^whsec_/).waitFor();
    await page.locator('li.endpoint-card', { hasText: 'Fulfilment' }).waitFor();
    const listed = (await call('GET', '/v1/webhook-endpoints?limit=100')).json() as {
      data: { id: string; description?: string; eventTypes: string[] }[];
    };
    const made = listed.data.find((e) => e.description === 'Fulfilment');
    assert.ok(made, 'created');
    const stored = await t.app.webhooks.getEndpoint(t.db.sql, { tenant: 'acme', id: made.id });
    assert.equal(stored?.applicationId, appA, 'in the session’s application');
    assert.deepEqual(made.eventTypes, ['order.shipped']);

    await page.locator('li.endpoint-card', { hasText: 'Fulfilment' }).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Fulfilment' }).waitFor();
    const settings = page.getByRole('region', { name: 'Settings' });
    await settings.getByLabel('Description').fill('Fulfilment v2');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint updated.' }).waitFor();
    await page.getByRole('heading', { level: 1, name: 'Fulfilment v2' }).waitFor();

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Test event \S+ queued/ })
      .waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await secret.getByText(/^whsec_/).waitFor();
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint disabled.' }).waitFor();
    await page.getByRole('button', { name: 'Re-enable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint re-enabled.' }).waitFor();
    await page.getByRole('button', { name: 'Delete endpoint…' }).click();
    await page.getByRole('button', { name: 'Delete permanently' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Endpoint Fulfilment v2 deleted.' }).waitFor();
    assert.equal((await call('GET', `/v1/webhook-endpoints/${made.id}`)).statusCode, 404);
    await page.close();
  });

  test('the catalogue: each type’s name, description, schema and example', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('link', { name: 'Event types' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event types' }).waitFor();
    const type = serviceRegistry().get('order.created')!;
    const card = page.locator('li.event-type[data-type="order.created"]');
    await card.getByText(type.description).waitFor();
    await card.getByText('Schema of the payload').click();
    await card.locator('pre').getByText('"customerId"').first().waitFor();
    await shot(page, 'portal-catalogue.png', false);
    await page.close();
  });

  test('deliveries and attempts with the receiver’s answer as text; replay; recover', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.locator('li.endpoint-card', { hasText: 'Orders' }).getByRole('link').click();
    await page.locator('tr[data-status="failed"]').getByRole('link', { name: 'order.created' }).click();
    await page.getByRole('heading', { level: 1, name: 'order.created' }).waitFor();
    const selected = page.locator('li.delivery[aria-current="true"]');
    await selected.locator('tr.attempt[data-status="500"]').getByText(XSS.response).waitFor();
    await page.getByText('Payload').click();
    await page.locator('pre.payload').getByText(XSS.payload, { exact: false }).waitFor();
    await shot(page, 'portal-deliveries.png');

    failing.behaviour = (_r, _n, res) => void res.writeHead(200).end('ok');
    await selected.getByRole('button', { name: 'Replay to this endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Replay queued: 1 new delivery' }).waitFor();
    await worker.drain();
    await page
      .locator('li.delivery[data-status="delivered"]')
      .locator('tr.attempt[data-status="200"]')
      .first()
      .waitFor();

    await page.goto(s.link.replace(/#.*/, '#/'));
    await page.locator('li.endpoint-card', { hasText: 'Orders' }).getByRole('link').click();
    await page.getByRole('button', { name: 'Recover', exact: true }).click();
    await page.getByRole('status').filter({ hasText: '1 failed delivery queued again.' }).waitFor();
    await worker.drain();
    assert.equal(failing.received.length, 3, 'the first try, the replay, the recovery');
    assert.equal(await page.evaluate(() => (window as { __xss?: number }).__xss), undefined);
    await page.close();
  });

  test('a read-only session shows no write action', async () => {
    const s = await portalSession(appA, { readOnly: true });
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    await page.getByText('read only').first().waitFor();
    await shot(page, 'portal-read-only.png');
    assert.equal(await page.getByRole('region', { name: 'Add an endpoint' }).count(), 0);
    await page.locator('li.endpoint-card', { hasText: 'Orders' }).getByRole('link').click();
    await page.getByRole('region', { name: 'Deliveries' }).waitFor();
    for (const name of ['Actions', 'Settings', 'Delete this endpoint']) {
      assert.equal(await page.getByRole('region', { name }).count(), 0, name);
    }
    await page.locator('tr[data-status]').first().getByRole('link').click();
    await page.locator('li.delivery').first().waitFor();
    assert.equal(await page.getByRole('button', { name: /Replay/ }).count(), 0);
    await page.close();
  });

  test('an expired or revoked session shows “session expired”', async () => {
    const short = await portalSession(appA, { expiresInSeconds: 60 });
    skew = 5 * 60_000;
    try {
      const page = await newPage();
      await page.goto(short.link);
      await page.getByRole('heading', { level: 1, name: 'Your session has expired' }).waitFor();
      assert.ok(!page.url().includes(short.token));
      assert.equal(await page.locator('#nav').isHidden(), true);
      await shot(page, 'portal-expired.png');
      await page.close();
    } finally {
      skew = 0;
    }

    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    const revoked = await call('DELETE', `/v1/portal-sessions/${s.id}`);
    assert.ok(revoked.statusCode < 300, revoked.body);
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Your session has expired' }).waitFor();
    await page.getByText('This portal session was revoked').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0, 'the token is forgotten');
    await page.close();
  });

  test('“End session” revokes the session: the token stops working, and the tab forgets it', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(s.link);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    await page.getByRole('button', { name: 'End session' }).click();
    await page.getByRole('heading', { level: 1, name: 'Session ended' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'its link no longer works' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    const res = await fetch(`${base}/v1/portal-session`, { headers: { authorization: `Bearer ${s.token}` } });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { code: string }).code, 'portal_session_revoked');
    await page.close();
  });

  test('375 px wide: no sideways scrolling on the portal’s views', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.setViewportSize({ width: 375, height: 812 });
    const noSideScroll = async (what: string) => {
      const { scroll, width } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        width: document.documentElement.clientWidth,
      }));
      assert.ok(scroll <= width, `${what}: ${scroll}px of content in ${width}px`);
    };
    await page.goto(s.link);
    await page.locator('li.endpoint-card').first().waitFor();
    await noSideScroll('endpoints');
    await shot(page, 'narrow-endpoints.png');
    await page.locator('li.endpoint-card', { hasText: 'Orders' }).getByRole('link').click();
    await page.locator('tr[data-status]').first().waitFor();
    await noSideScroll('endpoint');
    await page.locator('tr[data-status]').first().getByRole('link').click();
    await page.locator('tr.attempt').first().waitFor();
    await noSideScroll('event');
    await shot(page, 'narrow-event.png');
    await page.close();
  });

  test('framed by an allowed origin it works; another origin is refused', async () => {
    const s = await portalSession(appA);
    const page = await newPage();
    await page.goto(allowed.frame(s.link));
    const frame = page.frameLocator('#portal');
    await frame.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    await frame.locator('li.endpoint-card', { hasText: 'Analytics pipeline' }).waitFor();
    await shot(page, 'portal-framed.png');
    await page.close();

    // Another origin: Chromium refuses to render the page in its frame (frame-ancestors).
    const s2 = await portalSession(appA);
    const isolated = await browser.newContext();
    const page2 = await isolated.newPage();
    page2.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const refusal = page2.waitForEvent('console', {
      predicate: (m) => /frame-ancestors/.test(m.text()),
      timeout: WAIT,
    });
    await page2.goto(other.frame(s2.link));
    // "Framing '<portal>' violates … "frame-ancestors <the allowed origin>"": this origin is not one.
    const message = (await refusal).text();
    assert.ok(message.includes(`frame-ancestors ${allowed.origin}`), message);
    // Chromium puts its own error page in the frame: nothing of the portal, and no script of it ran.
    const framed = page2.frames().find((f) => f !== page2.mainFrame());
    assert.ok(framed, 'the frame exists');
    assert.ok(!framed.url().startsWith(base), `the frame shows ${framed.url()}`);
    assert.equal(await framed.getByText('Your webhook endpoints').count(), 0);
    assert.notEqual(allowed.origin, other.origin);
    await isolated.close();
  });

  test('no dialog opened, no page errors, no CSP violations, nothing sent beyond 127.0.0.1', async () => {
    assert.deepEqual(dialogs, [], 'no markup ran');
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(offsite, []);
    if (process.env.UPDATE_SCREENSHOTS) {
      for (const name of ['portal-endpoints.png', 'portal-deliveries.png', 'portal-catalogue.png']) {
        copyFileSync(new URL(name, SHOTS), new URL(`docs/${name}`, ROOT));
      }
    }
  });
});
