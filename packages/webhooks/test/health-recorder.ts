// The endpoint-health recorder's options for tests that drive it directly (the breaker's races, its
// memory): a worker's defaults, throttling off, nothing disabled or reported; `options` over them.
import type { HealthOptions } from '../src/delivery/health.js';

export const recorderOptions = (
  options: Pick<HealthOptions, 'sql' | 'st'> & Partial<HealthOptions>,
): HealthOptions => ({
  circuitThreshold: 10,
  circuitProbeMs: 5000,
  circuitMaxProbeMs: 300_000,
  timeoutMs: 10_000,
  flushIntervalMs: 20,
  disableAfterMs: 86_400_000,
  throttle: {
    enabled: false,
    decrease: 0.7,
    minRate: 1,
    maxCap: 64,
    recoverMs: 1,
    latencyFactor: 3,
    latencyFloorMs: 250,
  },
  disable: async () => false,
  on: { breaker() {}, disabled() {}, throttled() {} },
  ...options,
});
