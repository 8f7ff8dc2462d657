// The service's housekeeping purges (startPurges): the key purge gets the configured pacing, runs
// one at a time, and stops after its current batch on close. A fake engine records each call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PurgeOptions } from '@surety/idempotency';
import { startPurges } from './server.js';

const quiet = { info() {}, warn() {} };
const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), `timed out waiting for ${what}`);
};

test('the key purge runs with the configured pacing, one run at a time, and close stops it', async () => {
  const calls: PurgeOptions[] = [];
  let finish: (n: number) => void = () => {};
  const idempotency = {
    purgeExpired: (options: PurgeOptions = {}) => {
      calls.push(options);
      // a run that lasts until the test ends it, or until it is aborted (as pacedPurge does)
      return new Promise<number>((resolve) => {
        finish = resolve;
        options.signal?.addEventListener('abort', () => resolve(0), { once: true });
      });
    },
  };
  let sessionPurges = 0;
  const purges = startPurges(
    idempotency,
    async () => ++sessionPurges,
    { idempotencyPurge: { intervalMs: 20, batchSize: 50, dutyCycle: 0.05, maxBatches: 7 } },
    quiet,
  );
  await until('the first run', () => calls.length === 1);
  const first = calls[0]!;
  assert.deepEqual(
    { ...first, signal: undefined },
    { batchSize: 50, dutyCycle: 0.05, maxBatches: 7, maxDurationMs: 20, signal: undefined },
  );
  // ticks go by while the first run is still going: sessions are purged, no second key purge starts
  await until('three more ticks', () => sessionPurges >= 4);
  assert.equal(calls.length, 1);
  finish(3);
  await until('the next run', () => calls.length === 2);
  // close aborts the run in progress and waits for it; nothing starts after
  await purges.stop();
  assert.equal(calls[1]!.signal?.aborted, true);
  const after = calls.length;
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(calls.length, after);
});
