// The CLI as a user runs it: `surety listen` in its own process receives an event published by
// `surety trigger`, verifies it, forwards it with the original headers, and removes its endpoint on exit.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { verifySync } from '@surety/webhook-verify';
import { DeliveryWorker, parseAllowList } from '@surety/webhooks';
import { startReceiver } from '@surety/webhooks/testing';
import { createTestApp, KEYS, type TestApp } from './helpers.js';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  spawn(process.execPath, ['--conditions=@surety/source', '--import', 'tsx', cli, ...args], {
    env: {
      ...process.env,
      SURETY_URL: '',
      SURETY_API_KEY: '',
      SURETY_DATA_DIR: '/nonexistent-surety-test',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

function collect(child: ChildProcess) {
  let output = '';
  child.stdout!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  child.stderr!.on('data', (c: Buffer) => {
    output += c.toString();
  });
  const exited = new Promise<number>((r) => child.on('exit', (code) => r(code ?? -1)));
  return {
    output: () => output,
    exited,
    async waitFor(re: RegExp, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      while (!re.test(output)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`never saw ${re}:\n${output}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

describe('surety CLI', () => {
  let t: TestApp;
  let base: string;
  let worker: DeliveryWorker;
  before(async () => {
    t = await createTestApp();
    // Real time: the worker signs with this clock and `surety listen` checks the signature's
    // timestamp against the real one (5 min tolerance); frozen at before(), a slow CI run of the
    // spawned CLIs came within a minute of that.
    Object.defineProperty(t.clock, 'now', { get: () => Date.now(), set: () => {} });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    worker = new DeliveryWorker({
      webhooks: t.app.webhooks,
      pollIntervalMs: 25,
      guard: { allowList: parseAllowList('127.0.0.1/32'), allowHttp: true },
    });
    await worker.start();
  });
  after(async () => {
    await worker.stop();
    await t.close();
  });

  test('--help, unknown commands and bad options exit with usage and a clear message', async () => {
    const help = collect(run(['--help']));
    assert.equal(await help.exited, 0);
    assert.match(help.output(), /Usage: surety <command>/);
    const unknown = collect(run(['frobnicate']));
    assert.equal(await unknown.exited, 2);
    assert.match(unknown.output(), /unknown command "frobnicate"/);
    const badOption = collect(run(['listen', '--nope']));
    assert.equal(await badOption.exited, 2);
    assert.match(badOption.output(), /Unknown option '--nope'/);
    const noKey = collect(run(['trigger', 'order.shipped', '--url', base]));
    assert.equal(await noKey.exited, 2);
    assert.match(noKey.output(), /no API key/);
    const badType = collect(run(['trigger', 'nope.nope', '--url', base, '--api-key', KEYS.acme]));
    assert.equal(await badType.exited, 2);
    assert.match(badType.output(), /unknown event type nope\.nope/);
  });

  test('listen receives a triggered event, verifies it, forwards it, and removes its endpoint on exit', async () => {
    const app = await startReceiver();
    try {
      const listener = run([
        'listen',
        '--forward-to',
        app.url,
        '--events',
        'order.shipped',
        '--url',
        base,
        '--api-key',
        KEYS.acme,
      ]);
      const l = collect(listener);
      await l.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+\/ as endpoint (we_\w+)/);
      const endpointId = /as endpoint (we_\w+)/.exec(l.output())![1]!;

      const trig = collect(run(['trigger', 'order.shipped', '--url', base, '--api-key', KEYS.acme]));
      assert.equal(await trig.exited, 0, trig.output());
      const eventId = /published (evt_\w+) \(order\.shipped\)/.exec(trig.output())?.[1];
      assert.ok(eventId, trig.output());

      await app.waitFor(1, 60_000);
      await l.waitFor(new RegExp(`<- ${eventId} order\\.shipped \\(signature ok\\) -> .* 204`));
      const forwarded = app.received[0]!;
      assert.equal(forwarded.headers['webhook-id'], eventId);
      assert.ok(forwarded.headers['webhook-signature'], 'original signature headers are forwarded');
      assert.equal(JSON.parse(forwarded.body).type, 'order.shipped');
      // the forwarded request still verifies with the temporary endpoint's secret, which only the
      // listener knew; we check the signature header survived byte for byte instead:
      assert.throws(() =>
        verifySync({
          body: forwarded.body,
          headers: forwarded.headers,
          secrets: ['whsec_wrongwrongwrongwrongwrongwrongwrongwr'],
        }),
      );

      listener.kill('SIGINT');
      assert.equal(await l.exited, 0, l.output());
      assert.match(l.output(), new RegExp(`removed endpoint ${endpointId}`));
      const gone = await t.app.inject({
        method: 'GET',
        url: `/v1/webhook-endpoints/${endpointId}`,
        headers: { authorization: `Bearer ${KEYS.acme}` },
      });
      assert.equal(gone.statusCode, 404);
    } finally {
      await app.close();
    }
  });
});
