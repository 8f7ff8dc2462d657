import { type Clock, systemClock } from './clock.js';

/** Settings of a `CircuitBreaker`. */
export interface CircuitBreakerOptions {
  /** Opens after this many failures in a row. @default 5 */
  consecutiveFailures?: number;
  /** Opens when at least this share of the attempts in the window failed… @default 0.5 */
  failureRatio?: number;
  /** …and the window holds at least this many attempts (a ratio of 1 of 2 means nothing). @default 20 */
  minimumRequests?: number;
  /** The rolling window the ratio is computed over, in milliseconds. @default 10000 */
  windowMs?: number;
  /** How long the circuit stays open before letting probes through, in milliseconds. @default 5000 */
  openMs?: number;
  /** How many probes may be in flight at once while half-open. @default 1 */
  halfOpenProbes?: number;
  /** The time source. @default systemClock */
  clock?: Pick<Clock, 'now'>;
  /**
   * Called on every state change with the new state and the one before. Given here it cannot be
   * replaced later (the `onStateChange` property, assignable, is called after it).
   * @default undefined
   */
  onStateChange?: (state: CircuitState, previous: CircuitState) => void;
}

/** The state of a breaker: `closed` lets everything through, `open` nothing, `half-open` a few probes. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** What an attempt taught the breaker: `ignore` releases its slot without a verdict (e.g. caller abort). */
export type CircuitOutcome = 'success' | 'failure' | 'ignore';

const BUCKETS = 10;

/**
 * A circuit breaker for one origin. `closed`: requests flow and outcomes are counted. It opens after
 * `consecutiveFailures` failures in a row, or when `failureRatio` of at least `minimumRequests` attempts
 * in the last `windowMs` failed. `open`: requests are refused without being sent, for `openMs`. Then
 * `half-open`: up to `halfOpenProbes` requests go through; one success closes it, one failure opens it
 * again for another `openMs`.
 * @example
 * const breaker = new CircuitBreaker({ consecutiveFailures: 5, openMs: 5_000 });
 * if (!breaker.tryAcquire()) throw new CircuitOpenError(origin, breaker.retryAfterMs);
 * breaker.record(ok ? 'success' : 'failure');
 */
export class CircuitBreaker {
  readonly consecutiveFailures: number;
  readonly failureRatio: number;
  readonly minimumRequests: number;
  readonly windowMs: number;
  readonly openMs: number;
  readonly halfOpenProbes: number;
  /**
   * Called on every state change, after the `onStateChange` option. Kept for compatibility: prefer
   * the option, which whoever holds the breaker cannot overwrite.
   */
  onStateChange: ((state: CircuitState, previous: CircuitState) => void) | undefined;
  readonly #listener: ((state: CircuitState, previous: CircuitState) => void) | undefined;
  readonly #clock: Pick<Clock, 'now'>;
  #state: CircuitState = 'closed';
  #openedAt = 0;
  #streak = 0;
  #probes = 0;
  // A ring of BUCKETS time slices of windowMs / BUCKETS each: [total, failures] per slice.
  readonly #totals = new Array<number>(BUCKETS).fill(0);
  readonly #failures = new Array<number>(BUCKETS).fill(0);
  #slice = 0;
  #sliceIndex = 0;

  constructor(options: CircuitBreakerOptions = {}) {
    this.consecutiveFailures = options.consecutiveFailures ?? 5;
    this.failureRatio = options.failureRatio ?? 0.5;
    this.minimumRequests = options.minimumRequests ?? 20;
    this.windowMs = options.windowMs ?? 10_000;
    this.openMs = options.openMs ?? 5_000;
    this.halfOpenProbes = options.halfOpenProbes ?? 1;
    this.#clock = options.clock ?? systemClock;
    this.#listener = options.onStateChange;
    this.#slice = Math.floor(this.#clock.now() / (this.windowMs / BUCKETS));
  }

  /** The current state (an open breaker whose `openMs` has passed reads as `half-open`). */
  get state(): CircuitState {
    if (this.#state === 'open' && this.#clock.now() - this.#openedAt >= this.openMs) {
      this.#transition('half-open');
    }
    return this.#state;
  }

  /** Milliseconds until an open breaker lets a probe through; 0 unless open. */
  get retryAfterMs(): number {
    return this.state === 'open' ? this.#openedAt + this.openMs - this.#clock.now() : 0;
  }

  /** Asks to send one attempt; `false` means refuse it. Every `true` must be followed by one `record`. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#probes >= this.halfOpenProbes) return false;
    this.#probes++;
    return true;
  }

  /** Reports how an acquired attempt went. */
  record(outcome: CircuitOutcome): void {
    if (this.#state === 'half-open') {
      this.#probes = Math.max(0, this.#probes - 1);
      if (outcome === 'success') this.#close();
      else if (outcome === 'failure') this.#open();
      return;
    }
    if (outcome === 'ignore' || this.#state === 'open') return;
    this.#count(outcome === 'failure');
    if (outcome === 'success') {
      this.#streak = 0;
      return;
    }
    this.#streak++;
    if (this.#streak >= this.consecutiveFailures) {
      this.#open();
      return;
    }
    let total = 0;
    let failed = 0;
    for (let i = 0; i < BUCKETS; i++) {
      total += this.#totals[i]!;
      failed += this.#failures[i]!;
    }
    if (total >= this.minimumRequests && failed / total >= this.failureRatio) this.#open();
  }

  #count(failed: boolean): void {
    const slice = Math.floor(this.#clock.now() / (this.windowMs / BUCKETS));
    // Clear the slices that went by since the last count (at most the whole ring).
    for (let gap = Math.min(slice - this.#slice, BUCKETS); gap > 0; gap--) {
      this.#sliceIndex = (this.#sliceIndex + 1) % BUCKETS;
      this.#totals[this.#sliceIndex] = 0;
      this.#failures[this.#sliceIndex] = 0;
    }
    this.#slice = Math.max(slice, this.#slice);
    this.#totals[this.#sliceIndex]!++;
    if (failed) this.#failures[this.#sliceIndex]!++;
  }

  #open(): void {
    this.#openedAt = this.#clock.now();
    this.#probes = 0;
    this.#transition('open');
  }

  #close(): void {
    this.#streak = 0;
    this.#totals.fill(0);
    this.#failures.fill(0);
    this.#transition('closed');
  }

  #transition(next: CircuitState): void {
    const previous = this.#state;
    this.#state = next;
    if (previous === next) return;
    this.#listener?.(next, previous);
    this.onStateChange?.(next, previous);
  }
}
