import type { PhaseStatements } from './phase-statements.js';
import { type PhasedOperation, runPhased } from './phases.js';
import type { EngineContext } from './types.js';

/** The options of `Idempotency.completer`. */
export interface CompleterOptions {
  /** The operations it may run, found by the name stored with each key. */
  // biome-ignore lint/suspicious/noExplicitAny: each operation reads its own input type
  operations: readonly PhasedOperation<any>[];
  /**
   * How long after a key's lease lapsed the completer takes it over: a client's own retry resumes
   * first. @default the engine's leaseMs
   */
  graceMs?: number;
  /** Keys taken per pass. @default 20 */
  batchSize?: number;
  /** Between passes that found nothing, for `start`. @default 1000 */
  intervalMs?: number;
  /** Told of each key it could not finish (the key stays for a later pass). @default ignored */
  onError?: (error: unknown, at: { tenant: string; key: string; operation: string }) => void;
}

/** Finishes phased operations nobody retries: `runOnce` for one pass, `start`/`stop` for a loop. */
export interface Completer {
  /** One pass: resumes up to `batchSize` stuck keys; answers how many reached a final answer. */
  runOnce(): Promise<number>;
  /** Runs passes until `stop`; a pass that finished something is followed at once by another. */
  start(): void;
  /** Stops the loop and waits for the pass under way. */
  stop(): Promise<void>;
}

interface StuckRow {
  tenant: string;
  key: string;
  fingerprint: string;
  operation: string;
  input: string | null;
}

export function createCompleter(
  ctx: EngineContext,
  pst: PhaseStatements,
  options: CompleterOptions,
): Completer {
  const byName = new Map(options.operations.map((op) => [op.name, op]));
  const graceMs = options.graceMs ?? ctx.leaseMs;
  const batchSize = options.batchSize ?? 20;
  const intervalMs = options.intervalMs ?? 1000;
  for (const [name, value] of [
    ['graceMs', graceMs],
    ['batchSize', batchSize],
    ['intervalMs', intervalMs],
  ] as const)
    if (!Number.isInteger(value) || value < 0 || (name === 'batchSize' && value < 1))
      throw new RangeError(`${name} must be an integer ≥ ${name === 'batchSize' ? 1 : 0}, got ${value}`);

  async function runOnce(): Promise<number> {
    const now = ctx.now();
    const { rows } = await ctx.sql.query<StuckRow>(pst.stuck, [
      new Date(now - graceMs).toISOString(),
      new Date(now).toISOString(),
      batchSize,
    ]);
    let finished = 0;
    for (const row of rows) {
      const operation = byName.get(row.operation);
      const at = { tenant: row.tenant, key: row.key, operation: row.operation };
      if (!operation) {
        options.onError?.(new Error(`no operation named ${JSON.stringify(row.operation)}`), at);
        continue;
      }
      try {
        const input = row.input === null ? null : JSON.parse(row.input);
        const outcome = await runPhased(
          ctx,
          pst,
          { tenant: row.tenant, key: row.key, fingerprint: row.fingerprint },
          operation,
          input,
        );
        if (outcome.kind === 'executed' && outcome.stored) finished++;
      } catch (error) {
        options.onError?.(error, at);
      }
    }
    return finished;
  }

  let running = false;
  let pass: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (!running) return;
    pass = runOnce()
      .catch(() => 0)
      .then((n) => {
        if (running) timer = setTimeout(loop, n > 0 ? 0 : intervalMs);
      });
  };
  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      loop();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}
