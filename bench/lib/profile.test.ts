// The profile summary charges each sample to its function and package, leaves idle out, and names
// places by package: a hand-made profile with known numbers.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { placeOf, summariseProfiles } from './profile.js';

test('places are named by package', () => {
  assert.deepEqual(placeOf('node:internal/streams/readable', 9), {
    where: 'node:internal/streams/readable:10',
    pkg: 'node (internals)',
  });
  assert.equal(placeOf('file:///x/node_modules/undici/lib/core/request.js', 0).pkg, 'undici');
  assert.equal(
    placeOf('file:///x/node_modules/@fastify/ajv-compiler/index.js', 0).pkg,
    '@fastify/ajv-compiler',
  );
  assert.equal(
    placeOf(new URL('../../packages/webhooks/src/worker.ts', import.meta.url).href, 4).pkg,
    '@surety/webhooks',
  );
  assert.equal(placeOf('', 0).pkg, '(native or VM)');
});

test('self time per function and package from samples and time deltas', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prof-'));
  try {
    mkdirSync(join(dir, 'worker'));
    const frame = (functionName: string, url: string) => ({
      functionName,
      url,
      lineNumber: 0,
      columnNumber: 0,
    });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('(idle)', '') },
        { id: 3, callFrame: frame('post', 'file:///x/node_modules/undici/lib/a.js') },
        { id: 4, callFrame: frame('(garbage collector)', '') },
      ],
      // samples at t = 0, 1000, 4000, 5000, 6000 µs: node 3 gets 1000 + 1000, idle 3000, gc 1000 + mean
      samples: [3, 2, 3, 4, 4],
      timeDeltas: [0, 1000, 3000, 1000, 1000],
    };
    writeFileSync(join(dir, 'worker', 'CPU.20261201.120000.42.0.001.cpuprofile'), JSON.stringify(profile));
    // a loader-hook thread's profile (thread 1) is not the process's work
    writeFileSync(join(dir, 'worker', 'CPU.20261201.120000.42.1.002.cpuprofile'), JSON.stringify(profile));
    const s = summariseProfiles(dir, 'worker', 15, 0)!;
    assert.equal(s.files, 1);
    // node 3: 1000 (to t=1000) + 1000 (t=4000→5000); gc: 1000 + mean of deltas (1500) = 2500; idle excluded
    assert.equal(s.totalMs, 4.5);
    assert.deepEqual(
      s.byPackage.map((p) => [p.name, p.selfMs]),
      [
        ['(garbage collector)', 2.5],
        ['undici', 2],
      ],
    );
    assert.equal(s.top[1]!.name, 'post');
    assert.equal(summariseProfiles(dir, 'server'), undefined);
    // start-up left out: skipping the first 2 ms drops the samples at t = 0 and 1000 µs
    assert.equal(summariseProfiles(dir, 'worker', 15, 2)!.totalMs, 3.5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
