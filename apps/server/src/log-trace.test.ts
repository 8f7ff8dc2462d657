// pino merges each line's own fields into the object the mixin returns (Object.assign(mixin, merge)):
// without an active span that object must still be a fresh, extensible one, or every log line with
// fields (Fastify's request log) throws and the server dies on its first request.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { traceFields } from './log-trace.js';

test('log lines with fields, outside any span, are written and carry no trace ids', () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = pino({ mixin: traceFields }, stream);
  log.info({ req: { method: 'POST' } }, 'first');
  log.info({ res: { statusCode: 201 } }, 'second');
  assert.equal(lines.length, 2);
  const second = JSON.parse(lines[1]!) as Record<string, unknown>;
  assert.deepEqual(second['res'], { statusCode: 201 });
  assert.equal(second['req'], undefined, 'fields of one line never leak into the next');
  assert.equal(second['trace_id'], undefined);
});
