// The service's partition maintenance (issue 22): the worker's companion job creates the history's
// windows ahead at once, drops expired ones, logs and counts what it kept. The app's clock moves;
// nothing sleeps.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { webhooksInternals } from '@surety/webhooks/testing';
import { loadConfig } from '../src/config.js';
import { Metrics } from '../src/metrics.js';
import { startWorker } from '../src/server.js';
import { API_KEYS, createTestApp, type TestApp } from './helpers.js';

const DAY = 86_400_000;
let t: TestApp;

before(async () => {
  t = await createTestApp();
  // The database's clock moves with the app's (maintenance decides by the database's clock).
  webhooksInternals(t.app.webhooks).dbNow = async () => t.clock.now;
});
after(() => t.close());

function recorder() {
  const lines: { level: string; o: object; msg: string }[] = [];
  return {
    lines,
    info: (o: object, msg: string) => void lines.push({ level: 'info', o, msg }),
    warn: (o: object, msg: string) => void lines.push({ level: 'warn', o, msg }),
  };
}

const windowEnds = async () =>
  (
    await t.db.sql.query<{ suffix: string; ends: string }>(
      `select suffix, ends_at::text as ends from "${t.db.schema}".webhook_partitions order by ends_at`,
    )
  ).rows;

test('the worker job creates windows ahead at start, drops expired ones, and reports them', async () => {
  const config = loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_PARTITIONS_AHEAD: '3' });
  assert.equal(config.webhookPartitionDays, 1);
  assert.equal(config.webhookPartitionsAhead, 3);
  const metrics = new Metrics({ defaults: false });
  const log = recorder();
  const first = startWorker(t.app.webhooks, config, log, metrics);
  await first.stop(); // waits for the run it started
  const ends = await windowEnds();
  assert.ok(Date.parse(ends.at(-1)!.ends) >= t.clock.now + 3 * DAY, JSON.stringify(ends));
  const ready = await metrics.registry.getSingleMetricAsString(
    'surety_webhook_partitions_ready_until_seconds',
  );
  assert.match(
    ready,
    new RegExp(`surety_webhook_partitions_ready_until_seconds ${Date.parse(ends.at(-1)!.ends) / 1000}`),
  );
  assert.ok(log.lines.some((l) => l.msg === 'webhook history partitions maintained'));

  // 40 days later (retention 30): p0 and the first windows go, logged; nothing is held.
  t.clock.now += 40 * DAY;
  const later = recorder();
  const second = startWorker(t.app.webhooks, config, later, metrics);
  await second.stop();
  const done = later.lines.find((l) => l.msg === 'webhook history partitions maintained');
  assert.ok(done, JSON.stringify(later.lines));
  assert.ok((done.o as { dropped: string[] }).dropped.includes('p0'));
  assert.ok(!(await windowEnds()).some((w) => w.suffix === 'p0'));
  const held = await metrics.registry.getSingleMetricAsString('surety_webhook_partitions_held');
  assert.match(held, /surety_webhook_partitions_held\{reason="pending"\} 0/);
  assert.ok(!later.lines.some((l) => l.level === 'warn'), JSON.stringify(later.lines));
});

// Issue 30, N2: a process whose clock is 40 days ahead of the database's: the run is refused,
// nothing changes, the skew is logged with a clear message and shown as a metric.
test("a clock far from the database's refuses the run, logged and measured", async () => {
  const config = loadConfig({ SURETY_API_KEYS: API_KEYS });
  const i = webhooksInternals(t.app.webhooks);
  const moved = i.dbNow;
  i.dbNow = async () => t.clock.now - 40 * DAY;
  try {
    const before = await windowEnds();
    const metrics = new Metrics({ defaults: false });
    const log = recorder();
    const w = startWorker(t.app.webhooks, config, log, metrics);
    await w.stop();
    assert.deepEqual(await windowEnds(), before);
    assert.ok(
      log.lines.some((l) => l.level === 'warn' && /clock is [\d.]+ s ahead of the database/.test(l.msg)),
      JSON.stringify(log.lines),
    );
    const skew = await metrics.registry.getSingleMetricAsString('surety_webhook_clock_skew_seconds');
    assert.match(skew, new RegExp(`surety_webhook_clock_skew_seconds ${(40 * DAY) / 1000}`));
  } finally {
    i.dbNow = moved;
  }
});

test('SURETY_WEBHOOK_PARTITION_DAYS and _AHEAD out of range refuse to start', () => {
  assert.throws(() => loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_PARTITION_DAYS: '0' }), {
    code: 'SURETY_CONFIG',
  });
  assert.throws(() => loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_PARTITIONS_AHEAD: '400' }), {
    code: 'SURETY_CONFIG',
  });
});

// pg_partman users (docs/operations.md, "Letting pg_partman manage the partitions") turn the service's
// own maintenance off: it must then neither create nor drop a window, and say so once.
test('SURETY_WEBHOOK_PARTITION_MAINTENANCE=off: the worker job creates and drops nothing', async () => {
  const config = loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_PARTITION_MAINTENANCE: 'off' });
  assert.equal(config.webhookPartitionMaintenance, false);
  const before = await windowEnds();
  t.clock.now += 400 * 86_400_000; // far past retention and past every window made ahead
  const log = recorder();
  const w = startWorker(t.app.webhooks, config, log, new Metrics({ defaults: false }));
  await w.stop();
  assert.deepEqual(await windowEnds(), before);
  assert.ok(
    !log.lines.some((l) => l.msg === 'webhook history partitions maintained'),
    JSON.stringify(log.lines),
  );
  assert.ok(
    log.lines.some((l) => l.msg.includes('partition maintenance is off')),
    JSON.stringify(log.lines),
  );
});

test('SURETY_WEBHOOK_PARTITION_MAINTENANCE takes on or off, nothing else', () => {
  assert.equal(loadConfig({ SURETY_API_KEYS: API_KEYS }).webhookPartitionMaintenance, true);
  assert.equal(
    loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_PARTITION_MAINTENANCE: 'on' })
      .webhookPartitionMaintenance,
    true,
  );
  assert.throws(
    () => loadConfig({ SURETY_API_KEYS: API_KEYS, SURETY_WEBHOOK_PARTITION_MAINTENANCE: 'partman' }),
    {
      code: 'SURETY_CONFIG',
    },
  );
});
