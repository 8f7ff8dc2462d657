import { type Clock, systemClock } from './clock.js';

/** Settings of a `RetryBudget`. */
export interface RetryBudgetOptions {
  /**
   * Retries earned by each request (each logical call, never a retry): 0.1 means retries can add at
   * most ~10 % to the traffic an origin sees, however many layers retry.
   * @default 0.1
   */
  ratio?: number;
  /**
   * Retries per second earned with no traffic at all: the floor that lets a client making one call a
   * minute still retry. Over a storm of `n` calls lasting `t` seconds, retries stay at or below
   * `maxTokens + ratio * n + minPerSecond * t`.
   * @default 1
   */
  minPerSecond?: number;
  /**
   * The most tokens the bucket holds, and what it starts with: the burst of retries allowed after a
   * quiet period. Deposits beyond it are dropped, so a long healthy spell cannot bank a storm.
   * @default 10
   */
  maxTokens?: number;
  /** The time source for the per-second floor. @default systemClock */
  clock?: Pick<Clock, 'now'>;
}

/** @default 0.1 */
export const DEFAULT_BUDGET_RATIO = 0.1;
/** @default 1 */
export const DEFAULT_BUDGET_MIN_PER_SECOND = 1;
/** @default 10 */
export const DEFAULT_BUDGET_MAX_TOKENS = 10;

// Deposits of 0.1 do not add up to exactly 1 in binary floating point (ten of them give 0.9999…).
const EPSILON = 1e-9;

/**
 * A retry budget: a token bucket in the style of Finagle's `RetryBudget` and gRPC's retry throttling.
 * Every call deposits `ratio` tokens, time deposits `minPerSecond`, and every retry must withdraw one
 * whole token first. When the bucket is empty the failure is returned to the caller instead of being
 * retried, so a failing origin sees at most ~`1 + ratio` times its normal traffic, not `maxAttempts`
 * times. `createFetch` keeps one per origin; share one between clients by passing a factory.
 * @example
 * const budget = new RetryBudget({ ratio: 0.1, maxTokens: 10 });
 * budget.deposit();                    // a call started
 * if (budget.tryWithdraw()) retry();   // a retry is affordable
 */
export class RetryBudget {
  readonly ratio: number;
  readonly minPerSecond: number;
  readonly maxTokens: number;
  readonly #clock: Pick<Clock, 'now'>;
  #tokens: number;
  #refilledAt: number;

  constructor(options: RetryBudgetOptions = {}) {
    this.ratio = options.ratio ?? DEFAULT_BUDGET_RATIO;
    this.minPerSecond = options.minPerSecond ?? DEFAULT_BUDGET_MIN_PER_SECOND;
    this.maxTokens = options.maxTokens ?? DEFAULT_BUDGET_MAX_TOKENS;
    if (!(this.ratio >= 0) || !(this.minPerSecond >= 0) || !(this.maxTokens >= 0)) {
      throw new RangeError('retry budget: ratio, minPerSecond and maxTokens must be >= 0');
    }
    this.#clock = options.clock ?? systemClock;
    this.#tokens = this.maxTokens;
    this.#refilledAt = this.#clock.now();
  }

  /** The tokens available now (a retry needs one whole token). */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Records one call (its first attempt). */
  deposit(): void {
    this.#refill();
    this.#tokens = Math.min(this.maxTokens, this.#tokens + this.ratio);
  }

  /** Spends one token for a retry; `false`, spending nothing, when less than one is left. */
  tryWithdraw(): boolean {
    this.#refill();
    if (this.#tokens < 1 - EPSILON) return false;
    this.#tokens = Math.max(0, this.#tokens - 1);
    return true;
  }

  #refill(): void {
    if (this.minPerSecond === 0) return;
    const now = this.#clock.now();
    const elapsed = now - this.#refilledAt;
    if (elapsed <= 0) return;
    this.#refilledAt = now;
    this.#tokens = Math.min(this.maxTokens, this.#tokens + (elapsed * this.minPerSecond) / 1000);
  }
}
