// A schema worker (schema-workers.ts starts them): compiles tenant types and validates payloads
// against them off the service's event loop, its compiled validators held per (tenant, name,
// version), least recently used out. One task at a time; the pool times each one out.
import { parentPort, workerData } from 'node:worker_threads';
import type { EventRegistry } from '@surety/events';
import { compileType } from './compile-type.js';
import type { WorkerReply, WorkerTask } from './schema-workers.js';

const { maxCached, maxValues } = workerData as { maxCached: number; maxValues: number };
const cache = new Map<string, EventRegistry>();

function registryOf(task: Extract<WorkerTask, { op: 'validate' }>): EventRegistry | string {
  const hit = cache.get(task.key);
  if (hit) {
    cache.delete(task.key);
    cache.set(task.key, hit);
    return hit;
  }
  // A stored schema passed the rules and the cost bound when it was written.
  const c = compileType(task.def, { trusted: true, maxValues });
  if (c.kind !== 'compiled') return `stored event type ${task.def.name} no longer compiles`;
  cache.set(task.key, c.registry);
  while (cache.size > maxCached) cache.delete(cache.keys().next().value!);
  return c.registry;
}

function run(task: WorkerTask): WorkerReply {
  if (task.op === 'compile') {
    const c = compileType(task.def, { trusted: task.trusted, maxValues });
    return c.kind === 'compiled' ? { kind: 'compiled' } : c;
  }
  const registry = registryOf(task);
  if (typeof registry === 'string') return { kind: 'failed', message: registry };
  const r = registry.validate(task.def.name, task.data);
  return r.kind === 'valid'
    ? { kind: 'valid' }
    : { kind: 'invalid-data', message: r.error.message, errors: r.error.errors };
}

parentPort!.on('message', (task: WorkerTask) => {
  let reply: WorkerReply;
  try {
    reply = run(task);
  } catch (error) {
    reply = { kind: 'failed', message: (error as Error).message };
  }
  parentPort!.postMessage(reply);
});
parentPort!.postMessage({ kind: 'ready' });
