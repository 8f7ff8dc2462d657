// Issue 36 in the browser: the dashboard's add form creates an AMQP, a NATS and an MQTT endpoint
// against the real brokers on 127.0.0.1 (RabbitMQ 5672 guest/guest, NATS JetStream 4222, Mosquitto
// 1883; each test skips with its reason when its broker is not there); each is listed with its kind
// and target, its page shows the settings and "password set" (never the password), a test event is
// delivered and its attempt reads "Confirmed". A refused broker host or subject is said next to its
// field; the credentials are replaced from the endpoint page; and a portal session adds an MQTT
// endpoint for its application. Screenshots go to .tmp/dashboard-brokers/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { type AddressInfo, createConnection } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { chromiumSkip, launchBrowser } from './browser.js';
import { auth, createTestApp, KEYS, newKey, type TestApp } from './helpers.js';

const ROOT = new URL('../../../', import.meta.url);
const SHOTS = new URL('.tmp/dashboard-brokers/', ROOT);
const WAIT = 30_000;

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    const done = (up: boolean) => {
      s.destroy();
      resolve(up);
    };
    s.once('connect', () => done(true)).once('error', () => done(false));
    s.setTimeout(1000, () => done(false));
  });
const [rabbit, nats, mosquitto] = await Promise.all([answers(5672), answers(4222), answers(1883)]);
/** A test's skip: Chromium's reason, else its broker's (.ci/run starts the three). */
const needs = (up: boolean, what: string) =>
  chromiumSkip || (up ? false : `no ${what} on 127.0.0.1 (.ci/run starts it): skipped`);

describe('broker endpoints in the dashboard and the portal', { skip: chromiumSkip }, () => {
  let t: TestApp;
  let base: string;
  let worker: DeliveryWorker;
  let browser: Browser;
  let context: BrowserContext;
  const offsite: string[] = [];
  const pageErrors: string[] = [];
  const cleanup: Array<() => Promise<unknown>> = [];

  const call = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: {
        ...auth('acme'),
        ...(method === 'POST' ? { 'idempotency-key': newKey() } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  type Listed = { id: string; description: string; kind: string; url: string; credentials: unknown };
  const listed = async () =>
    ((await call('GET', '/v1/webhook-endpoints?limit=100')).json() as { data: Listed[] }).data;

  before(async () => {
    t = await createTestApp();
    Object.defineProperty(t.clock, 'now', { get: () => Date.now(), set: () => {} });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // Loopback brokers: the guard's allow-list lets 127.0.0.1 through, as in the destination tests.
    worker = new DeliveryWorker({
      webhooks: t.app.webhooks,
      listen: false,
      random: () => 0,
      schedule: [],
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    ({ browser, context } = await launchBrowser({ width: 1280, waitMs: WAIT, offsite, pageErrors }));
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await worker?.stop();
    for (const undo of cleanup.reverse()) await undo().catch(() => {});
    await t?.close();
  });

  async function signIn(page: Page) {
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('API key').fill(KEYS.acme);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoints' }).waitFor();
  }

  async function shot(page: Page | Locator, name: string) {
    if ('mouse' in page) {
      await page.mouse.move(0, 0);
      await page.screenshot({ path: new URL(name, SHOTS).pathname, fullPage: true });
    } else await page.screenshot({ path: new URL(name, SHOTS).pathname });
  }

  /** The add form, opened, on a signed-in overview (or the portal's home). */
  async function openForm(page: Page) {
    const form = page.getByRole('region', { name: 'Add an endpoint' });
    await form.getByText('New endpoint').click();
    return form;
  }

  /**
   * Opens the card `description`, sends a test event, delivers it, follows the delivery to the
   * event's page and waits for the confirmed attempt.
   */
  async function testAndSeeAttempt(page: Page, description: string, shotName: string) {
    await page.locator('li.endpoint-card', { hasText: description }).getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: description }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Test event evt_\S+ queued/ })
      .waitFor();
    await worker.drain();
    const row = page.locator('tr[data-status="delivered"]').first();
    await row.getByText('confirmed').waitFor();
    // The broker's confirmation counts as a success in the endpoint's health.
    await page.locator('.stat', { hasText: 'Success rate (24 h)' }).getByText('100 %').waitFor();
    await shot(page, `${shotName}-page.png`);
    await row.getByRole('link', { name: 'webhook.test' }).click();
    await page.getByRole('heading', { level: 1, name: 'webhook.test' }).waitFor();
    const attempt = page.locator('li.delivery[aria-current="true"] tr.attempt[data-status="confirmed"]');
    await attempt.getByText('Confirmed', { exact: true }).waitFor();
    await attempt.getByText('the broker confirmed the publish').waitFor();
    await shot(page, `${shotName}-attempt.png`);
  }

  /** As testAndSeeAttempt, for an attempt the broker refused: its code is shown, not "Confirmed". */
  async function testAndSeeFailure(page: Page, description: string) {
    await page.locator('li.endpoint-card', { hasText: description }).getByRole('link').first().click();
    await page.getByRole('heading', { level: 1, name: description }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Test event evt_\S+ queued/ })
      .waitFor();
    await worker.drain();
    const row = page.locator('tr[data-status="failed"]').first();
    await row.getByText('auth_failed').waitFor();
    await row.getByRole('link', { name: 'webhook.test' }).click();
    const attempt = page.locator('li.delivery[aria-current="true"] tr.attempt[data-status="error"]');
    await attempt.getByText('Not confirmed', { exact: true }).waitFor();
    await attempt.getByText(/^auth_failed: /).waitFor();
    await shot(page, 'amqp-refused-attempt.png');
  }

  test('AMQP: created in the form with credentials, listed, "password set", a test event confirmed', {
    skip: needs(rabbit, 'RabbitMQ'),
  }, async () => {
    const amqplib = await import('amqplib');
    const conn = await amqplib.connect('amqp://guest:guest@127.0.0.1:5672');
    cleanup.push(() => conn.close());
    const ch = await conn.createChannel();
    const queue = `surety-ui-${Date.now()}`;
    await ch.assertQueue(queue, { autoDelete: false });
    cleanup.push(() => ch.deleteQueue(queue));

    const page = await context.newPage();
    await signIn(page);
    const form = await openForm(page);
    await form.getByLabel('Kind').selectOption('amqp');
    assert.equal(await form.getByLabel('Subject').isVisible(), false, 'only the kind’s own settings');
    await form.getByLabel('Broker URL').fill('amqp://127.0.0.1:5672/');
    await form.getByLabel('Exchange').fill('');
    await form.getByLabel('Routing key').fill(queue);
    await form.getByLabel('Username').fill('guest');
    await form.getByLabel('Password').fill('guest');
    await form.getByLabel('Description (optional)').fill('Ledger queue');
    await shot(form, 'add-amqp.png');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('region', { name: 'New signing secret' }).waitFor();
    const card = page.locator('li.endpoint-card', { hasText: 'Ledger queue' });
    await card.getByText('AMQP', { exact: true }).waitFor();
    await card.getByText(`exchange (the default), routing key ${queue}`).waitFor();
    await shot(page, 'listed.png');
    const made = (await listed()).find((e) => e.description === 'Ledger queue');
    assert.deepEqual(
      [made?.kind, made?.url, made?.credentials],
      ['amqp', 'amqp://127.0.0.1:5672/', { username: 'guest', password: '[redacted]' }],
    );

    await testAndSeeAttempt(page, 'Ledger queue', 'amqp');
    const got = await ch.get(queue, { noAck: true });
    assert.ok(got, 'the event is in the queue');
    assert.equal(JSON.parse(got.content.toString()).type, 'webhook.test');

    // The endpoint's page: its target and credentials, the password as "set", never its value.
    await page.getByRole('link', { name: 'Ledger queue' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Ledger queue' }).waitFor();
    await page.getByText('user guest, password set').first().waitFor();
    const creds = page.getByRole('region', { name: 'Broker credentials' });
    assert.equal(await creds.getByLabel('Password').inputValue(), '', 'the password is never shown back');
    // A new username without its password is refused in the page: saving sends the pair.
    await creds.getByLabel('Username').fill('svc');
    await creds.getByRole('button', { name: 'Save credentials' }).click();
    await creds.getByText('Type the password').waitFor();
    await creds.getByLabel('Password').fill('guest');
    await creds.getByLabel('Username').fill('guest');
    await creds.getByRole('button', { name: 'Save credentials' }).click();
    await page.getByRole('status').filter({ hasText: 'Broker credentials updated.' }).waitFor();
    assert.equal(await creds.getByLabel('Password').inputValue(), '', 'cleared once sent');
    await shot(page, 'amqp-endpoint.png');
    await creds.getByRole('button', { name: 'Remove credentials' }).click();
    await page.getByRole('status').filter({ hasText: 'Broker credentials removed.' }).waitFor();
    await creds.getByText('Set now: none').waitFor();
    assert.equal(await creds.getByRole('button', { name: 'Remove credentials' }).isVisible(), false);
    const after = (await listed()).find((e) => e.description === 'Ledger queue');
    assert.equal(after?.credentials, null);
    assert.ok(!(await page.content()).includes('guest:guest'), 'no credentials in the page');
    await page.close();
  });

  test('NATS: created with its subject, listed, a test event confirmed by JetStream; disable and enable', {
    skip: needs(nats, 'NATS'),
  }, async () => {
    const { connect } = await import('nats');
    const nc = await connect({ servers: '127.0.0.1:4222' });
    cleanup.push(() => nc.close());
    const jsm = await nc.jetstreamManager();
    const stream = `UI${Date.now()}`;
    await jsm.streams.add({ name: stream, subjects: [`${stream}.>`] });
    cleanup.push(() => jsm.streams.delete(stream));

    const page = await context.newPage();
    await signIn(page);
    const form = await openForm(page);
    await form.getByLabel('Kind').selectOption('nats');
    await form.getByLabel('Broker URL').fill('nats://127.0.0.1:4222');
    // A wildcard subject is refused next to its field, in the service's words; nothing is created.
    await form.getByLabel('Subject').fill(`${stream}.*`);
    await form.getByLabel('Description (optional)').fill('Stream mirror');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form
      .locator('.field-error')
      .getByText(/Refused: .*wildcards/)
      .waitFor();
    assert.equal(await form.getByLabel('Subject').getAttribute('aria-invalid'), 'true');
    await shot(form, 'add-nats-refused.png');
    assert.equal((await listed()).filter((e) => e.description === 'Stream mirror').length, 0);
    await form.getByLabel('Subject').fill(`${stream}.{type}`);
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const card = page.locator('li.endpoint-card', { hasText: 'Stream mirror' });
    await card.getByText(`subject ${stream}.{type}`).waitFor();
    await card.getByText('NATS', { exact: true }).waitFor();

    await testAndSeeAttempt(page, 'Stream mirror', 'nats');
    const m = await jsm.streams.getMessage(stream, { seq: 1 });
    assert.equal(m.subject, `${stream}.webhook.test`);

    await page.getByRole('link', { name: 'Stream mirror' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Stream mirror' }).waitFor();
    // No credentials: the page says so; the settings form edits the subject.
    await page.getByText('none (the service connects without credentials)').first().waitFor();
    const settings = page.getByRole('region', { name: 'Settings' });
    assert.equal(await settings.getByLabel('Subject').inputValue(), `${stream}.{type}`);
    await settings.getByLabel('Subject').fill(`${stream}.events.{type}`);
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint updated.' }).waitFor();
    await page.getByText(`subject ${stream}.events.{type}`).waitFor();
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint disabled.' }).waitFor();
    await page.getByRole('button', { name: 'Re-enable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Endpoint re-enabled.' }).waitFor();
    await page.close();
  });

  test('MQTT: created with topic and QoS, listed, a test event confirmed by the PUBACK; a private broker host is refused at its field', {
    skip: needs(mosquitto, 'Mosquitto'),
  }, async () => {
    const page = await context.newPage();
    await signIn(page);
    const form = await openForm(page);
    await form.getByLabel('Kind').selectOption('mqtt');
    await form.getByLabel('Broker URL').fill('mqtt://10.0.0.1:1883');
    await form.getByLabel('Topic').fill('surety-ui/{type}');
    await form.getByLabel('Description (optional)').fill('Plant floor');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    await form
      .locator('.field-error')
      .getByText(/refused this URL: .*10\.0\.0\.1 is a private address/)
      .waitFor();
    await page.getByRole('alert').filter({ hasText: '10.0.0.1 is a private address' }).waitFor();
    await shot(form, 'add-mqtt-refused.png');
    await form.getByLabel('Broker URL').fill('mqtt://127.0.0.1:1883');
    assert.equal(await form.getByLabel('QoS').inputValue(), '1');
    await shot(form, 'add-mqtt.png');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const card = page.locator('li.endpoint-card', { hasText: 'Plant floor' });
    await card.getByText('topic surety-ui/{type}, QoS 1').waitFor();
    await testAndSeeAttempt(page, 'Plant floor', 'mqtt');
    await page.close();
  });

  test('portal: the application adds an MQTT endpoint, sees it listed and its confirmed attempt', {
    skip: needs(mosquitto, 'Mosquitto'),
  }, async () => {
    const app = (await call('POST', '/v1/applications', { name: 'Initech', uid: 'cust_initech' })).json() as {
      id: string;
    };
    const session = (await call('POST', `/v1/applications/${app.id}/portal-sessions`, {})).json() as {
      url: string;
    };
    const url = new URL(session.url, base);
    const page = await context.newPage();
    await page.goto(`${base}${url.pathname}${url.search}${url.hash}`);
    await page.getByRole('heading', { level: 1, name: 'Your webhook endpoints' }).waitFor();
    const form = await openForm(page);
    await form.getByLabel('Kind').selectOption('mqtt');
    await form.getByLabel('Broker URL').fill('mqtt://127.0.0.1:1883');
    await form.getByLabel('Topic').fill('initech/{type}');
    await form.getByLabel('Description (optional)').fill('Initech telemetry');
    await shot(form, 'portal-add-mqtt.png');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const card = page.locator('li.endpoint-card', { hasText: 'Initech telemetry' });
    await card.getByText('topic initech/{type}, QoS 1').waitFor();
    await card.getByText('MQTT', { exact: true }).waitFor();
    const made = (await listed()).find((e) => e.description === 'Initech telemetry') as
      | (Listed & { applicationId: string })
      | undefined;
    assert.equal(made?.applicationId, app.id, "the portal's endpoint is the application's");
    await testAndSeeAttempt(page, 'Initech telemetry', 'portal-mqtt');
    await page.close();
  });

  test('a refused broker login: the attempt reads "Not confirmed" with the broker\'s error code', {
    skip: needs(rabbit, 'RabbitMQ'),
  }, async () => {
    const made = await call('POST', '/v1/webhook-endpoints', {
      kind: 'amqp',
      url: 'amqp://guest:wrong-password@127.0.0.1:5672/',
      destination: { exchange: '', routingKey: 'nowhere' },
      eventTypes: ['*'],
      description: 'Wrong password',
    });
    assert.equal(made.statusCode, 201, made.body);
    const page = await context.newPage();
    await signIn(page);
    await testAndSeeFailure(page, 'Wrong password');
    await page.close();
  });

  test('375 px wide: the broker form and an endpoint page scroll only down', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 375, height: 812 });
    const noSideScroll = async (what: string) => {
      const { scroll, width } = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        width: document.documentElement.clientWidth,
      }));
      assert.ok(scroll <= width, `${what}: ${scroll}px of content in ${width}px`);
    };
    await signIn(page);
    const form = await openForm(page);
    for (const kind of ['amqp', 'nats', 'mqtt']) {
      await form.getByLabel('Kind').selectOption(kind);
      await noSideScroll(`the ${kind} form`);
    }
    await shot(form, 'narrow-add-mqtt.png');
    const broker = (await listed()).find((e) => e.kind !== 'webhook' && e.kind !== 'poll');
    if (broker) {
      await page.goto(`${base}/dashboard#/endpoints/${broker.id}`);
      await page.getByRole('region', { name: 'Broker credentials' }).waitFor();
      await noSideScroll('a broker endpoint');
    }
    await page.close();
  });

  test('no page errors, no CSP violations, nothing sent beyond 127.0.0.1', () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(offsite, []);
  });
});
