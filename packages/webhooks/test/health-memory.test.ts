// A long-running worker's memory of its endpoints' health is bounded: EndpointHealthRecorder keeps
// when it last saw each endpoint healthy, to skip recording a success it recorded less than a second
// ago. An entry older than that serves nothing; kept forever, a tenant that keeps creating (and
// deleting) endpoints grew the worker's heap by ~255 bytes per endpoint it ever delivered to. The
// recorder's database is a stand-in that answers every statement with no rows: what is measured is
// the recorder's own heap, not what it writes (its writes are tested in the breaker's tests).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EndpointHealthRecorder } from '../src/delivery/health.js';
import { recorderOptions } from './health-recorder.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('the health recorder forgets endpoints it saw healthy more than a second ago', async () => {
  const noRows = { query: async () => ({ rows: [], rowCount: 0 }) };
  const recorder = new EndpointHealthRecorder(
    recorderOptions({ sql: noRows as never, st: new Proxy({}, { get: () => 'select 1' }) as never }),
  );
  // Batches of 500 successes, each from endpoints never seen before, two seconds apart.
  const batch = (from: number) =>
    Array.from({ length: 500 }, (_, i) => ({
      id: `dlv_${from + i}`,
      tenant: 'acme',
      endpointId: `we_${String(from + i).padStart(22, '0')}`,
      outcome: 'delivered' as const,
      nextAt: null,
      status: 200,
      errorCode: null,
      errorMessage: null,
      excerpt: null,
      attempt: 1,
      startedAt: new Date(0).toISOString(),
      durationMs: 5,
      gone: false,
      pauseUntil: null,
      eventId: 'evt_1',
      eventType: 'order.created',
    }));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 400; i++)
    await recorder.record(batch(i * 500) as never, new Date(1_000_000 + i * 2000).toISOString());
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  // 200,000 endpoints kept would be ~50 MB; the last second's 500 are ~0.1 MB.
  assert.ok(grown < 5e6, `the heap grew by ${(grown / 1e6).toFixed(1)} MB over 200,000 endpoints`);
});
