import { randomUUID } from 'node:crypto';
import { effectChannel } from '../diagnostics.js';
import { LeaseLostError } from '../errors.js';
import { deriveKey } from '../key.js';
import type { EffectsContext } from './context.js';
import type { EffectContext, EffectDefinition, EffectFailure } from './define.js';
import { decideRetry, describeError } from './policy.js';
import type { ClaimedRow } from './statements.js';

/** The settings of `Effects.worker`. */
export interface EffectWorkerOptions {
  /** Effects run at once by this worker. @default 8 */
  concurrency?: number;
  /** Between claims that found nothing. @default 1000 */
  intervalMs?: number;
  /**
   * How long a claimed effect is this worker's: after it, a worker that died is presumed dead and
   * another runs the effect again (with the same derived key). @default 60000
   */
  leaseMs?: number;
  /** One attempt's time: its `signal` aborts then. Less than `leaseMs`. @default 30000 */
  attemptTimeoutMs?: number;
  /** Told of what the worker could not do (the effect stays for its lease to lapse). @default ignored */
  onError?: (error: unknown, at: { id: string; name: string }) => void;
  /** Told of each attempt's outcome (metrics, logs). @default ignored */
  onOutcome?: (outcome: EffectOutcome) => void;
}

/** One attempt's outcome. */
export interface EffectOutcome {
  id: string;
  name: string;
  attempt: number;
  kind: 'succeeded' | 'retried' | 'failed' | 'lost';
  /** When `retried`: the wait before the next attempt. */
  delayMs?: number;
  /** When `retried` or `failed`: the error, as stored. */
  error?: string;
}

/** Runs the outbox's effects: `runOnce` for one claim, `start` / `stop` for a loop. */
export interface EffectWorker {
  /** Claims up to `concurrency` due effects, runs them, and answers how many it ran. */
  runOnce(): Promise<number>;
  /** Runs effects until `stop`, claiming again as each slot frees. */
  start(): void;
  /** Stops claiming and waits for the effects under way. */
  stop(): Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * An effect's result as jsonb can hold it: its JSON with NUL in strings replaced (jsonb refuses
 * `\u0000`, and a result is whatever the other side answered: stored safely, not refused for ever).
 */
function resultJson(result: unknown): string {
  return (
    JSON.stringify(result ?? null, (_key, value) =>
      typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value,
    ) ?? 'null'
  );
}

export function createEffectWorker(ctx: EffectsContext, options: EffectWorkerOptions): EffectWorker {
  const concurrency = options.concurrency ?? 8;
  const intervalMs = options.intervalMs ?? 1000;
  const leaseMs = options.leaseMs ?? 60_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 30_000;
  for (const [name, value] of [
    ['concurrency', concurrency],
    ['intervalMs', intervalMs],
    ['leaseMs', leaseMs],
    ['attemptTimeoutMs', attemptTimeoutMs],
  ] as const)
    if (!Number.isInteger(value) || value < (name === 'intervalMs' ? 0 : 1))
      throw new RangeError(`${name} must be a positive integer, got ${value}`);
  if (attemptTimeoutMs >= leaseMs)
    throw new RangeError(`attemptTimeoutMs (${attemptTimeoutMs}) must be less than leaseMs (${leaseMs})`);
  const names = [...ctx.byName.keys()];
  const { sql, st } = ctx;
  const report = (outcome: EffectOutcome) => {
    try {
      options.onOutcome?.(outcome);
    } catch {
      // an observer must not break the worker
    }
    if (effectChannel.hasSubscribers) effectChannel.publish(outcome);
  };

  /** Tells onError; an observer must not break the worker. */
  const tell = (error: unknown, at = { id: '', name: '' }) => {
    try {
      options.onError?.(error, at);
    } catch {}
  };
  // Claims that failed and may have committed (a lost reply): given back before the next claim and
  // at stop. Each is taken off the list first (two claims at once never repeat or drop one), and put
  // back if its give-back fails.
  const lost: [owner: string, leaseUntil: string, claimedAt: string][] = [];
  async function giveBack(): Promise<void> {
    for (let next = lost.shift(); next !== undefined; next = lost.shift()) {
      try {
        await sql.query(st.giveBack, next);
      } catch (error) {
        lost.unshift(next);
        throw error;
      }
    }
  }
  async function claim(limit: number): Promise<{ owner: string; rows: ClaimedRow[] }> {
    await giveBack();
    const owner = randomUUID();
    const now = ctx.now();
    const leaseUntil = iso(now + leaseMs);
    try {
      const { rows } = await sql.query<ClaimedRow>(st.claim, [iso(now), limit, owner, names, leaseUntil]);
      return { owner, rows };
    } catch (error) {
      lost.push([owner, leaseUntil, iso(now)]);
      throw error;
    }
  }

  async function giveUp(
    definition: EffectDefinition,
    row: ClaimedRow,
    owner: string,
    effect: EffectContext<unknown>,
    failure: EffectFailure,
  ): Promise<void> {
    await sql.transaction(
      async (tx, fenced) => {
        if (fenced?.rowCount !== 1) throw new LeaseLostError('the effect was taken over (its lease lapsed)');
        await definition.onFailed?.(tx, failure, effect);
      },
      { first: { statement: st.fail, params: [row.id, owner, iso(ctx.now()), failure.error] } },
    );
    report({ id: row.id, name: row.name, attempt: row.attempts, kind: 'failed', error: failure.error });
  }

  async function failed(
    definition: EffectDefinition,
    row: ClaimedRow,
    owner: string,
    effect: EffectContext<unknown>,
    error: unknown,
  ): Promise<void> {
    const nowMs = ctx.now();
    const decision = decideRetry({
      error,
      attempts: row.attempts,
      nowMs,
      deadlineMs: new Date(row.deadline_at).getTime(),
      policy: ctx.policy(definition),
      random: ctx.random,
      budget: ctx.budgetOf(row.name),
    });
    const described = describeError(error);
    if (decision.kind === 'fail') {
      await giveUp(definition, row, owner, effect, { reason: decision.reason, error: described });
      return;
    }
    const r = await sql.query(st.retry, [row.id, owner, iso(decision.atMs), described]);
    if (r.rowCount !== 1) throw new LeaseLostError('the effect was taken over (its lease lapsed)');
    report({
      id: row.id,
      name: row.name,
      attempt: row.attempts,
      kind: 'retried',
      delayMs: decision.delayMs,
      error: described,
    });
  }

  async function runOne(row: ClaimedRow, owner: string, stopping: AbortSignal): Promise<void> {
    const definition = ctx.byName.get(row.name)!;
    const effect: EffectContext<unknown> = {
      id: row.id,
      tenant: row.tenant,
      key: row.key,
      derivedKey: deriveKey(row.key, row.name),
      payload: JSON.parse(row.payload),
      attempt: row.attempts,
      signal: AbortSignal.any([stopping, AbortSignal.timeout(attemptTimeoutMs)]),
    };
    // No attempt starts after the deadline (a worker that died holding the effect, found late).
    if (ctx.now() >= new Date(row.deadline_at).getTime()) {
      const error = row.attempts > 1 ? 'the deadline passed before the next attempt' : 'the deadline passed';
      await giveUp(definition, row, owner, effect, { reason: 'deadline_exceeded', error });
      return;
    }
    if (row.attempts === 1) ctx.budgetOf(row.name)?.deposit();
    let result: unknown;
    try {
      result = await definition.run(effect);
    } catch (error) {
      await failed(definition, row, owner, effect, error);
      return;
    }
    try {
      // The result and the follow-up write commit together, or neither (then the effect runs again
      // with the same derived key: the other side answers it as the same request).
      // The fenced record goes first, in BEGIN's round trip (TransactionOptions.first): one round
      // trip fewer per effect than a statement of its own (bench/effects).
      await sql.transaction(
        async (tx, fenced) => {
          if (fenced?.rowCount !== 1)
            throw new LeaseLostError('the effect was taken over (its lease lapsed)');
          await definition.onSucceeded?.(tx, result, effect);
        },
        {
          first: {
            statement: st.succeed,
            params: [row.id, owner, resultJson(result), iso(ctx.now())],
          },
        },
      );
    } catch (error) {
      if (error instanceof LeaseLostError) throw error;
      await failed(definition, row, owner, effect, error);
      return;
    }
    report({ id: row.id, name: row.name, attempt: row.attempts, kind: 'succeeded' });
  }

  const stopper = new AbortController();
  const settle = (row: ClaimedRow, owner: string) =>
    runOne(row, owner, stopper.signal).catch((error) => {
      if (error instanceof LeaseLostError)
        report({ id: row.id, name: row.name, attempt: row.attempts, kind: 'lost' });
      tell(error, { id: row.id, name: row.name });
    });

  async function runOnce(): Promise<number> {
    const { owner, rows } = await claim(concurrency);
    await Promise.all(rows.map((row) => settle(row, owner)));
    return rows.length;
  }

  let running = false;
  let claiming = false;
  let timer: NodeJS.Timeout | undefined;
  const active = new Set<Promise<void>>();
  const later = () => {
    if (running && !timer) timer = setTimeout(pump, intervalMs);
  };
  function pump(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const free = concurrency - active.size;
    // Refill in batches (half the slots at least, or when idle), not one claim per finished effect:
    // one claim statement per effect cost ~40% of the drain rate (bench/effects).
    if (!running || claiming || free <= 0 || (active.size > 0 && free < Math.ceil(concurrency / 2))) return;
    claiming = true;
    claim(free)
      .then(({ owner, rows }) => {
        for (const row of rows) {
          const p: Promise<void> = settle(row, owner).then(() => {
            active.delete(p);
            pump();
          });
          active.add(p);
        }
        claiming = false;
        if (rows.length === free) pump();
        else later();
      })
      .catch((error) => {
        claiming = false;
        tell(error);
        later();
      });
  }

  return {
    runOnce,
    start() {
      if (running) return;
      running = true;
      pump();
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      while (active.size > 0 || claiming) {
        await Promise.all([...active]);
        if (claiming) await new Promise((r) => setTimeout(r, 5));
      }
      await giveBack().catch((error) => tell(error));
    },
  };
}
