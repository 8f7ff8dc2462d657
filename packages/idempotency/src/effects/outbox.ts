import { migrate, type Queryable, type Sql } from '@surety/db';
import { RetryBudget, type RetryBudgetOptions } from '@surety/fetch';
import { migrations } from '../migrations.js';
import type { EffectsContext } from './context.js';
import type { EffectDefinition } from './define.js';
import { EFFECT_RETRY_DEFAULTS, type EffectRetryOptions } from './policy.js';
import { effectStatements } from './statements.js';
import { createEffectWorker, type EffectWorker, type EffectWorkerOptions } from './worker.js';

/** The settings of `createEffects`. */
export interface EffectsOptions {
  sql: Sql;
  /** The schema of the idempotency tables (the effects table is one of its migrations). @default 'surety' */
  schema?: string;
  /** The effects a worker of this outbox can run. */
  // biome-ignore lint/suspicious/noExplicitAny: each effect reads its own payload and result types
  effects: readonly EffectDefinition<any, any>[];
  /** Retry settings for effects that set none of their own. @default EFFECT_RETRY_DEFAULTS */
  retry?: EffectRetryOptions;
  /**
   * The retry budget per effect name, @surety/fetch's token bucket: each first attempt deposits
   * `ratio`, each retry withdraws one; an empty bucket defers the retry to `maxDelayMs`.
   * `false`: none. @default { ratio: 0.1, minPerSecond: 1, maxTokens: 10 }
   */
  budget?: RetryBudgetOptions | false;
  /** @default Date.now */
  now?: () => number;
  /** @default Math.random */
  random?: () => number;
}

/** One enqueued effect. */
export interface EnqueueInput<P = unknown> {
  tenant: string;
  /** The effect's name, or its definition. */
  // biome-ignore lint/suspicious/noExplicitAny: the result type does not matter here
  effect: string | EffectDefinition<P, any>;
  /**
   * The operation's key: the request's Idempotency-Key, or a stable id (the payment's). One effect
   * per (tenant, effect, key); the effect runs with `deriveKey(key, effect)`.
   */
  key: string;
  /** JSON. */
  payload: P;
  /** Not before this many ms from now. @default 0 */
  delayMs?: number;
}

/** An effect's record, as `find` answers it. */
export interface EffectRecord {
  id: string;
  tenant: string;
  name: string;
  key: string;
  state: 'pending' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  runAt: string;
  deadlineAt: string;
  result: unknown;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

/** What the worker needs of the outbox. */

const iso = (ms: number) => new Date(ms).toISOString();
const isoOf = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

/**
 * The effects outbox (docs/side-effects.md): `enqueue(tx, …)` in the business transaction, a
 * worker (`worker()`) runs each effect with its derived key, retries it on the client policy until
 * its deadline, and records the result with the follow-up write in one transaction. Runs on
 * PostgreSQL and PGlite.
 * @example
 * const effects = createEffects({ sql, effects: [receipt] });
 * await effects.migrate();
 * await sql.transaction(async (tx) => {
 *   await insertPayment(tx, payment);
 *   await effects.enqueue(tx, { tenant, effect: receipt, key: payment.id, payload: { to, paymentId } });
 * });
 * const worker = effects.worker({ concurrency: 8 });
 * worker.start(); // … await worker.stop() on shutdown
 */
export class Effects {
  readonly sql: Sql;
  readonly schema: string;
  readonly #ctx: EffectsContext;

  constructor(options: EffectsOptions) {
    this.sql = options.sql;
    this.schema = options.schema ?? 'surety';
    const byName = new Map<string, EffectDefinition>();
    for (const definition of options.effects) {
      if (byName.has(definition.name)) throw new TypeError(`two effects are named ${definition.name}`);
      byName.set(definition.name, definition);
    }
    const defaults = { ...EFFECT_RETRY_DEFAULTS, ...options.retry };
    const budgets = new Map<string, RetryBudget>();
    const budget = options.budget;
    const now = options.now ?? Date.now;
    this.#ctx = {
      sql: this.sql,
      st: effectStatements(this.schema),
      byName,
      policy: (d) => ({
        deadlineMs: d.deadlineMs ?? defaults.deadlineMs,
        maxAttempts: d.maxAttempts ?? defaults.maxAttempts,
        baseDelayMs: d.baseDelayMs ?? defaults.baseDelayMs,
        maxDelayMs: d.maxDelayMs ?? defaults.maxDelayMs,
      }),
      budgetOf: (name) => {
        if (budget === false) return undefined;
        let b = budgets.get(name);
        if (!b) {
          b = new RetryBudget({ clock: { now }, ...budget });
          budgets.set(name, b);
        }
        return b;
      },
      now,
      random: options.random ?? Math.random,
    };
  }

  /** Creates or upgrades the tables (the idempotency package's migrations, the effects table included). */
  async migrate(): Promise<void> {
    await migrate(this.sql, { schema: this.schema, sets: [migrations] });
  }

  /**
   * Records an effect in `q`, the business transaction: it exists if and only if that transaction
   * commits. Enqueueing the same (tenant, effect, key) again answers the first one (`created: false`).
   */
  async enqueue<P>(q: Queryable, input: EnqueueInput<P>): Promise<{ id: string; created: boolean }> {
    const name = typeof input.effect === 'string' ? input.effect : input.effect.name;
    const definition = this.#ctx.byName.get(name);
    if (!definition) throw new TypeError(`no effect named ${JSON.stringify(name)} in this outbox`);
    const payload = JSON.stringify(input.payload);
    if (payload === undefined) throw new TypeError('an effect payload must be JSON');
    const now = this.#ctx.now();
    const deadline = now + this.#ctx.policy(definition).deadlineMs;
    const { rows } = await q.query<{ id: string; created: boolean }>(this.#ctx.st.enqueue, [
      input.tenant,
      name,
      input.key,
      payload,
      iso(now + (input.delayMs ?? 0)),
      iso(deadline),
      iso(now),
    ]);
    return rows[0]!;
  }

  /** The record of one effect, or undefined. */
  async find(
    q: Queryable,
    where: { tenant: string; effect: string; key: string },
  ): Promise<EffectRecord | undefined> {
    const { rows } = await q.query<Record<string, unknown>>(this.#ctx.st.find, [
      where.tenant,
      where.effect,
      where.key,
    ]);
    const r = rows[0];
    if (!r) return undefined;
    return {
      id: r.id as string,
      tenant: r.tenant as string,
      name: r.name as string,
      key: r.key as string,
      state: r.state as EffectRecord['state'],
      attempts: Number(r.attempts),
      runAt: isoOf(r.run_at as Date)!,
      deadlineAt: isoOf(r.deadline_at as Date)!,
      result: r.result === null ? null : JSON.parse(r.result as string),
      lastError: (r.last_error as string | null) ?? null,
      createdAt: isoOf(r.created_at as Date)!,
      finishedAt: isoOf(r.finished_at as Date | null),
    };
  }

  /** A worker: claims due effects (`for update skip locked`), runs them, records their outcome. */
  worker(options: EffectWorkerOptions = {}): EffectWorker {
    return createEffectWorker(this.#ctx, options);
  }
}

/** Factory for `Effects`. */
export const createEffects = (options: EffectsOptions): Effects => new Effects(options);
