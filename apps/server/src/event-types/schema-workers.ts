// The schema workers (issue 30, N1): a tenant's schema is compiled, and its payloads validated, in
// worker threads, never on the event loop every tenant shares. Each task has a time limit in CPU:
// once the process has spent it since the task started (an upper bound of the worker's own CPU;
// Node 20 cannot read one thread's), the worker is terminated (whatever ajv was doing stops at once)
// and the task answered SchemaTooCostlyError; a worker that runs out of its heap (resourceLimits)
// likewise. A task that only waited for a core (a loaded machine) is not too costly: it runs on
// until `starvedAfterMs` of wall clock, then is answered SchemaWorkersBusyError (503, retry). Tasks wait in
// one queue per tenant, served in turn, and a tenant with too many waiting is told to retry, so one
// tenant's costly payloads delay its own publishes, not another's. Workers start on first use.
import { Worker } from 'node:worker_threads';
import type { EventIssue } from '@surety/events';
import type { CompileCode, TypeDefinition } from './compile-type.js';

/** What the pool asks a worker. */
export type WorkerTask =
  | { op: 'compile'; def: TypeDefinition; trusted: boolean }
  | { op: 'validate'; key: string; def: TypeDefinition; data: unknown };

/** What a worker answers. */
export type WorkerReply =
  | { kind: 'compiled' }
  | { kind: 'invalid'; code: CompileCode; errors: EventIssue[] }
  | { kind: 'valid' }
  | { kind: 'invalid-data'; message: string; errors: EventIssue[] }
  | { kind: 'failed'; message: string };

/** The answer to a task whose schema or payload is nested too deeply to hand to a worker. */
function tooDeep(task: WorkerTask): WorkerReply {
  const message = 'nested too deeply to validate (a few thousand levels at most)';
  return task.op === 'validate'
    ? { kind: 'invalid-data', message: `the payload is ${message}`, errors: [{ path: '', message }] }
    : { kind: 'invalid', code: 'invalid_event_schema', errors: [{ path: '/schema', message }] };
}

/** A compile or a validation that ran past its time limit or out of the worker's heap. */
export class SchemaTooCostlyError extends Error {
  constructor(
    readonly op: WorkerTask['op'],
    readonly reason: 'time' | 'memory',
    readonly limit: number,
  ) {
    super(
      reason === 'time'
        ? `${op === 'compile' ? 'compiling the schema' : 'validating the payload'} took longer than ${limit} ms`
        : `${op === 'compile' ? 'compiling the schema' : 'validating the payload'} needed more than ${limit} MB`,
    );
    this.name = 'SchemaTooCostlyError';
  }
}

/** Too many of the tenant's tasks are waiting already. */
export class SchemaWorkersBusyError extends Error {
  constructor(
    readonly limit: number,
    message = `${limit} of this tenant's schema tasks are waiting already`,
  ) {
    super(message);
    this.name = 'SchemaWorkersBusyError';
  }
}

export interface SchemaWorkersOptions {
  /** The most JSON values a request body holds (the cost model's data bound). */
  maxValues: number;
  /** Worker threads. @default 1 */
  size?: number;
  /** CPU time limit of one task, in milliseconds. @default 1000 */
  timeoutMs?: number;
  /**
   * Wall-clock bound of a task that has not spent `timeoutMs` in CPU (the machine is loaded): past
   * it the task is answered SchemaWorkersBusyError. @default 10 × timeoutMs
   */
  starvedAfterMs?: number;
  /** The process's CPU time in milliseconds (tests inject one). @default process.cpuUsage() */
  cpuClock?: () => number;
  /** Heap of a worker (its old generation), in MB. @default 256 */
  heapMb?: number;
  /** Tasks of one tenant waiting at most (beyond: SchemaWorkersBusyError). @default 32 */
  maxQueuedPerTenant?: number;
  /** Compiled types each worker holds. @default 500 */
  maxCached?: number;
}

interface Pending {
  task: WorkerTask;
  resolve: (r: WorkerReply) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  current?: Pending & { timer: NodeJS.Timeout };
}

// Under the TypeScript sources (tests) the worker is the .ts file, run by the loader it inherits.
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './schema-worker.ts' : './schema-worker.js',
  import.meta.url,
);
/** The loader and resolution flags of this process, which the worker needs (not `--test` and the like). */
function workerExecArgv(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--import' || a === '--loader' || a === '--conditions' || a === '-C') out.push(a, argv[++i]!);
    else if (/^--(import|loader|conditions|experimental-[a-z-]+|enable-source-maps)(=|$)/.test(a))
      out.push(a);
  }
  return out;
}

function processCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export class SchemaWorkers {
  readonly #options: Required<SchemaWorkersOptions>;
  readonly #slots: (Slot | undefined)[];
  readonly #queues = new Map<string, Pending[]>();
  #closed = false;
  /** Workers terminated for a task past its limits (tests, metrics). */
  terminated = 0;

  constructor(options: SchemaWorkersOptions) {
    const timeoutMs = options.timeoutMs ?? 1000;
    this.#options = {
      size: 1,
      heapMb: 256,
      maxQueuedPerTenant: 32,
      maxCached: 500,
      starvedAfterMs: 10 * timeoutMs,
      cpuClock: processCpuMs,
      ...options,
      timeoutMs,
    };
    this.#slots = Array.from({ length: this.#options.size }, () => undefined);
  }

  /** Runs a task for `tenant` in a worker, in the tenant's turn. */
  run(tenant: string, task: WorkerTask): Promise<WorkerReply> {
    if (this.#closed) return Promise.reject(new Error('the schema workers are closed'));
    const queue = this.#queues.get(tenant) ?? [];
    if (queue.length >= this.#options.maxQueuedPerTenant) {
      return Promise.reject(new SchemaWorkersBusyError(this.#options.maxQueuedPerTenant));
    }
    return new Promise<WorkerReply>((resolve, reject) => {
      queue.push({ task, resolve, reject });
      this.#queues.set(tenant, queue);
      this.#dispatch();
    });
  }

  /** Stops every worker; waiting tasks are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const q of this.#queues.values())
      for (const p of q) p.reject(new Error('the schema workers are closed'));
    this.#queues.clear();
    await Promise.all(
      this.#slots.map((s) => {
        if (s?.current) clearTimeout(s.current.timer);
        return s?.worker.terminate();
      }),
    );
  }

  /** The next waiting task of the tenant whose turn it is (round robin over tenants). */
  #next(): Pending | undefined {
    for (const [tenant, queue] of this.#queues) {
      this.#queues.delete(tenant);
      const p = queue.shift();
      if (queue.length > 0) this.#queues.set(tenant, queue); // to the back of the turn
      if (p) return p;
    }
    return undefined;
  }

  #dispatch(): void {
    for (let i = 0; i < this.#slots.length && this.#queues.size > 0; i++) {
      const slot = this.#slots[i] ?? this.#start(i);
      if (!slot.ready || slot.current) continue;
      const p = this.#next();
      if (!p) return;
      const { timeoutMs, starvedAfterMs, cpuClock } = this.#options;
      const cpuAtStart = cpuClock();
      const startedAt = performance.now();
      // At the limit on the wall clock, and again until the CPU spent reaches it or the task has
      // waited starvedAfterMs: too costly only for what it could have spent.
      const check = () => {
        const current = slot.current;
        if (!current || this.#slots[i] !== slot) return;
        const spent = cpuClock() - cpuAtStart;
        if (spent >= timeoutMs) return this.#fail(i, new SchemaTooCostlyError(p.task.op, 'time', timeoutMs));
        const waited = performance.now() - startedAt;
        if (waited >= starvedAfterMs)
          return this.#fail(
            i,
            new SchemaWorkersBusyError(
              this.#options.maxQueuedPerTenant,
              `the machine is too busy: this schema task got ${Math.round(spent)} ms of CPU in ${Math.round(waited)} ms`,
            ),
          );
        current.timer = setTimeout(check, Math.min(Math.max(10, timeoutMs - spent), starvedAfterMs - waited));
      };
      slot.current = { ...p, timer: setTimeout(check, timeoutMs) };
      try {
        slot.worker.postMessage(p.task);
      } catch (error) {
        // Not handed over: structured clone refuses a value nested deeper than its stack allows
        // (~4,000 levels). Answered now, and the slot serves the next task at once (it stayed busy
        // until the time limit: every tenant's tasks waited behind it).
        clearTimeout(slot.current.timer);
        slot.current = undefined;
        if (error instanceof RangeError) p.resolve(tooDeep(p.task));
        else p.reject(error instanceof Error ? error : new Error(String(error)));
        i--; // the same slot, free again, is offered the next task
      }
    }
  }

  #start(i: number): Slot {
    // Under the TypeScript sources (the tests run them through tsx), a worker does not get the
    // loader `--import tsx` registered in this thread: it registers tsx's, then imports the entry.
    const fromSources = WORKER_URL.pathname.endsWith('.ts');
    const source = `import('tsx/esm/api').then((t) => { t.register(); return import(${JSON.stringify(WORKER_URL.href)}); })`;
    const worker = new Worker(fromSources ? source : WORKER_URL, {
      eval: fromSources,
      workerData: { maxCached: this.#options.maxCached, maxValues: this.#options.maxValues },
      execArgv: workerExecArgv(),
      resourceLimits: { maxOldGenerationSizeMb: this.#options.heapMb, maxYoungGenerationSizeMb: 32 },
    });
    worker.unref();
    const slot: Slot = { worker, ready: false };
    this.#slots[i] = slot;
    worker.on('message', (reply: WorkerReply | { kind: 'ready' }) => {
      // The worker says when its modules are loaded: a task's time limit starts after that.
      if (reply.kind === 'ready') {
        slot.ready = true;
        this.#dispatch();
        return;
      }
      const done = slot.current;
      if (!done) return;
      clearTimeout(done.timer);
      slot.current = undefined;
      done.resolve(reply);
      this.#dispatch();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const op = slot.current?.task.op ?? 'validate';
      this.#fail(
        i,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new SchemaTooCostlyError(op, 'memory', this.#options.heapMb)
          : error,
      );
    });
    worker.on('exit', () => {
      if (this.#slots[i] === slot) this.#fail(i, new Error('a schema worker exited'));
    });
    return slot;
  }

  /** Ends the slot's worker, answers its task with `error`, and goes on with a new worker. */
  #fail(i: number, error: Error): void {
    const slot = this.#slots[i];
    if (!slot) return;
    this.#slots[i] = undefined;
    if (slot.current) {
      clearTimeout(slot.current.timer);
      slot.current.reject(error);
      slot.current = undefined;
    } else if (!slot.ready) {
      this.#next()?.reject(error); // a worker that cannot start: each try answers one task
    }
    this.terminated++;
    void slot.worker.terminate();
    if (!this.#closed) this.#dispatch();
  }
}
