import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

// Keys configured, so no dev key is generated; the data directory is never touched.
const base = { SURETY_API_KEYS: 'acme:sk_test_0123456789abcdef' };

test('the webhook fairness caps: defaults, from the environment, and refused when not a positive integer', () => {
  const defaults = loadConfig(base);
  assert.equal(defaults.webhookMaxInFlightPerEndpoint, 32);
  assert.equal(defaults.webhookMaxInFlightPerTenant, 48);
  const set = loadConfig({
    ...base,
    SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '4',
    SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_TENANT: '500',
  });
  assert.equal(set.webhookMaxInFlightPerEndpoint, 4);
  assert.equal(set.webhookMaxInFlightPerTenant, 500);
  for (const bad of ['0', '-1', '1.5', 'many', '100001']) {
    for (const name of [
      'SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT',
      'SURETY_WEBHOOK_MAX_IN_FLIGHT_PER_TENANT',
    ]) {
      assert.throws(
        () => loadConfig({ ...base, [name]: bad }),
        (e: unknown) => e instanceof ConfigError && e.message.includes(name),
        `${name}=${bad}`,
      );
    }
  }
});
