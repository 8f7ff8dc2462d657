// A process a benchmark starts must end with the benchmark, even when the benchmark is killed
// (`timeout`'s SIGKILL, run.ts's own time limit): an orphaned `surety worker` goes on claiming from the
// benchmark's schema and spoils every later run (docs/benchmarks.md, session 8).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { TETHER_ARGS } from './tether.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !alive(pid);
}

// The parent: starts a long-lived grandchild the way `how` says, prints its pid, then idles until killed.
function parentScript(how: 'spawn' | 'fork' | 'untethered' | 'devnull'): string {
  const child = 'setInterval(() => {}, 1000); process.send?.("up");';
  const args = JSON.stringify(how === 'untethered' ? [] : TETHER_ARGS);
  return `
    const { spawn, fork } = require('node:child_process');
    const fs = require('node:fs'); const os = require('node:os'); const path = require('node:path');
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tether-')), 'child.cjs');
    fs.writeFileSync(file, ${JSON.stringify(child)});
    const c = ${JSON.stringify(how)} === 'fork'
      ? fork(file, { execArgv: ${args}, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
      : spawn(process.execPath, [...${args}, file], { stdio: [${JSON.stringify(how === 'devnull' ? 'ignore' : 'pipe')}, 'inherit', 'inherit'] });
    setTimeout(() => console.log(c.pid), 300);
    setInterval(() => {}, 1000);
  `;
}

async function orphanAfterKill(
  how: Parameters<typeof parentScript>[0],
): Promise<{ pid: number; ended: boolean }> {
  const parent = spawn(process.execPath, ['-e', parentScript(how)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const pid = await new Promise<number>((resolve, reject) => {
    createInterface({ input: parent.stdout! }).once('line', (l) => resolve(Number(l)));
    parent.once('exit', (code) => reject(new Error(`parent exited ${code} before its child started`)));
  });
  assert.ok(alive(pid), 'the child runs while its parent does');
  parent.kill('SIGKILL');
  const ended = await gone(pid, 5000);
  if (!ended) process.kill(pid, 'SIGKILL');
  return { pid, ended };
}

test('a tethered child (stdin a pipe) ends when its parent is SIGKILLed', async () => {
  assert.equal((await orphanAfterKill('spawn')).ended, true);
});

test('a tethered forked child (an IPC channel) ends when its parent is SIGKILLed', async () => {
  assert.equal((await orphanAfterKill('fork')).ended, true);
});

test('control: without the tether the child outlives its killed parent (what the tether is for)', async () => {
  assert.equal((await orphanAfterKill('untethered')).ended, false);
});

test('a tethered child whose stdin is /dev/null is not tied (it would otherwise end at once)', async () => {
  assert.equal((await orphanAfterKill('devnull')).ended, false);
});
