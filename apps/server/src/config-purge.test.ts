import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

// Keys configured, so no dev key is generated; the data directory is never touched.
const base = { SURETY_API_KEYS: 'acme:sk_test_0123456789abcdef' };

test('the idempotency purge settings: defaults, from the environment, and refused when out of range', () => {
  assert.deepEqual(loadConfig(base).idempotencyPurge, {
    intervalMs: 600_000,
    batchSize: 200,
    dutyCycle: 0.2,
    maxBatches: 5000,
  });
  const set = loadConfig({
    ...base,
    SURETY_IDEMPOTENCY_PURGE_INTERVAL_SECONDS: '60',
    SURETY_IDEMPOTENCY_PURGE_BATCH_SIZE: '50',
    SURETY_IDEMPOTENCY_PURGE_DUTY_PERCENT: '5',
    SURETY_IDEMPOTENCY_PURGE_MAX_BATCHES: '100',
  });
  assert.deepEqual(set.idempotencyPurge, {
    intervalMs: 60_000,
    batchSize: 50,
    dutyCycle: 0.05,
    maxBatches: 100,
  });
  for (const [name, bad] of [
    ['SURETY_IDEMPOTENCY_PURGE_INTERVAL_SECONDS', '0'],
    ['SURETY_IDEMPOTENCY_PURGE_INTERVAL_SECONDS', '10m'],
    ['SURETY_IDEMPOTENCY_PURGE_BATCH_SIZE', '0'],
    ['SURETY_IDEMPOTENCY_PURGE_BATCH_SIZE', '10001'],
    ['SURETY_IDEMPOTENCY_PURGE_DUTY_PERCENT', '0'],
    ['SURETY_IDEMPOTENCY_PURGE_DUTY_PERCENT', '0.2'],
    ['SURETY_IDEMPOTENCY_PURGE_DUTY_PERCENT', '101'],
    ['SURETY_IDEMPOTENCY_PURGE_MAX_BATCHES', '-1'],
  ]) {
    assert.throws(
      () => loadConfig({ ...base, [name!]: bad }),
      (e: unknown) =>
        e instanceof ConfigError && e.message.includes(name!) && e.message.includes(JSON.stringify(bad)),
      `${name}=${bad}`,
    );
  }
});
