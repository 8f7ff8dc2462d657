// The purge's pacing, on a clock the test moves: how long it rests after each batch, and that it
// stops within its bounds (batches, time, abort). What it deletes is tested on a database in
// test/engine.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PURGE_DEFAULTS, type PurgeOptions, type PurgeTimer, pacedPurge, purgeSettings } from './purge.js';

/** A fake clock: batches advance it by their duration, rests by theirs, and both are recorded. */
function harness(durations: readonly number[], rows: (i: number, limit: number) => number) {
  let now = 1000;
  const rests: number[] = [];
  const limits: number[] = [];
  const timer: PurgeTimer = {
    now: () => now,
    sleep: async (ms) => {
      rests.push(ms);
      now += ms;
    },
  };
  const batch = async (limit: number) => {
    const i = limits.length;
    limits.push(limit);
    now += durations[i % durations.length]!;
    return rows(i, limit);
  };
  return {
    rests,
    limits,
    run: (options: PurgeOptions) => pacedPurge(batch, options, timer),
    elapsed: () => now - 1000,
  };
}

describe('purge pacing', () => {
  test('rests after each full batch in proportion to its measured duration (duty cycle)', async () => {
    const h = harness([10, 30, 5, 20], (i, limit) => (i < 3 ? limit : 4));
    const purged = await h.run({ batchSize: 50, dutyCycle: 0.25 });
    assert.equal(purged, 3 * 50 + 4);
    assert.deepEqual(h.limits, [50, 50, 50, 50]);
    // rest = duration × (1 − 0.25) ÷ 0.25: three times each full batch; none after the short one
    assert.deepEqual(h.rests, [30, 90, 15]);
    // working 65 ms of 200: the share it was given, and no more
    assert.equal(h.elapsed(), 200);
  });

  test('the defaults work a fifth of the time', async () => {
    const h = harness([8], (i, limit) => (i < 2 ? limit : 0));
    await h.run({});
    assert.equal(PURGE_DEFAULTS.dutyCycle, 0.2);
    assert.deepEqual(h.limits, [
      PURGE_DEFAULTS.batchSize,
      PURGE_DEFAULTS.batchSize,
      PURGE_DEFAULTS.batchSize,
    ]);
    assert.deepEqual(h.rests, [32, 32]);
  });

  test('dutyCycle 1 never rests; pauseMs rests a fixed time instead', async () => {
    const full = harness([10], (i, limit) => (i < 3 ? limit : 0));
    await full.run({ batchSize: 5, dutyCycle: 1 });
    assert.deepEqual(full.rests, []);
    const fixed = harness([10, 40], (i, limit) => (i < 2 ? limit : 0));
    await fixed.run({ batchSize: 5, pauseMs: 7 });
    assert.deepEqual(fixed.rests, [7, 7]);
  });

  test('stops after maxBatches even when every batch is full', async () => {
    const h = harness([1], (_, limit) => limit);
    const purged = await h.run({ batchSize: 3, maxBatches: 25, dutyCycle: 0.5 });
    assert.equal(h.limits.length, 25);
    assert.equal(purged, 75);
  });

  test('stops before a rest would take it past maxDurationMs', async () => {
    const h = harness([10], (_, limit) => limit);
    await h.run({ batchSize: 1, dutyCycle: 0.5, maxDurationMs: 95 });
    // each batch + rest is 20 ms: four fit (80 ms), the fifth batch ends at 90 and its rest would end at 100
    assert.equal(h.limits.length, 5);
    assert.equal(h.rests.length, 4);
    assert.ok(h.elapsed() <= 95, `ran ${h.elapsed()} ms`);
  });

  test('an abort stops it between batches', async () => {
    const controller = new AbortController();
    const h = harness([10], (i, limit) => {
      if (i === 2) controller.abort();
      return limit;
    });
    const purged = await h.run({ batchSize: 4, signal: controller.signal });
    assert.equal(h.limits.length, 3);
    assert.equal(purged, 12);
  });

  test('the real timer ends a rest early when aborted', async () => {
    const controller = new AbortController();
    let batches = 0;
    const started = performance.now();
    setTimeout(() => controller.abort(), 30);
    await pacedPurge(
      async (limit) => {
        batches++;
        return limit;
      },
      { batchSize: 1, pauseMs: 60_000, signal: controller.signal },
    );
    assert.equal(batches, 1);
    assert.ok(performance.now() - started < 5_000);
  });

  test('bad options are a RangeError naming the option', () => {
    for (const [options, name] of [
      [{ batchSize: 0 }, 'batchSize'],
      [{ batchSize: 1.5 }, 'batchSize'],
      [{ maxBatches: 0 }, 'maxBatches'],
      [{ dutyCycle: 0 }, 'dutyCycle'],
      [{ dutyCycle: 1.5 }, 'dutyCycle'],
      [{ dutyCycle: Number.NaN }, 'dutyCycle'],
      [{ pauseMs: -1 }, 'pauseMs'],
      [{ maxDurationMs: 0 }, 'maxDurationMs'],
    ] as const)
      assert.throws(() => purgeSettings(options), { name: 'RangeError', message: new RegExp(name) });
  });
});
