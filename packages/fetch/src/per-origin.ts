import { RetryBudget } from './budget.js';
import { CircuitBreaker } from './circuit-breaker.js';
import type { Clock } from './clock.js';
import { circuitChannel } from './diagnostics.js';
import type { FetchOptions } from './options.js';

// Origins of recently seen URLs: parsing a URL costs about a microsecond, and most clients call a few
// URLs over and over. Cleared when full, so arbitrary query strings cannot grow it without bound.
const origins = new Map<string, string>();
export function originOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    origin = new URL(url).origin;
    if (origins.size >= 1024) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

/** The retry budgets and circuit breakers of one client, one of each per origin, created on first use. */
export interface PerOrigin {
  budgetFor(origin: string): RetryBudget | undefined;
  breakerFor(origin: string): CircuitBreaker | undefined;
  /** Whether budgets or breakers are on at all: when neither is, a call need not work out its origin. */
  needsOrigin: boolean;
}

/** Builds the per-origin state from the client's `retryBudget` and `circuitBreaker` options. */
export function createPerOrigin(
  options: Pick<FetchOptions, 'retryBudget' | 'circuitBreaker'>,
  clock: Clock,
): PerOrigin {
  const budgetOption = options.retryBudget ?? {};
  const budgets = new Map<string, RetryBudget>();
  const budgetFor = (origin: string): RetryBudget | undefined => {
    if (budgetOption === false) return undefined;
    let budget = budgets.get(origin);
    if (budget === undefined) {
      budget =
        typeof budgetOption === 'function'
          ? budgetOption(origin)
          : new RetryBudget({ clock, ...budgetOption });
      budgets.set(origin, budget);
    }
    return budget;
  };

  const breakerOption = options.circuitBreaker ?? false;
  const breakers = new Map<string, CircuitBreaker>();
  const breakerFor = (origin: string): CircuitBreaker | undefined => {
    if (breakerOption === false) return undefined;
    let breaker = breakers.get(origin);
    if (breaker === undefined) {
      if (typeof breakerOption === 'function') breaker = breakerOption(origin);
      else {
        const settings = breakerOption === true ? {} : breakerOption;
        const user = settings.onStateChange;
        // The diagnostics channel listens through the option, so the breaker's assignable
        // `onStateChange` property stays the caller's and nothing here is overwritten.
        breaker = new CircuitBreaker({
          clock,
          ...settings,
          onStateChange: (state, previous) => {
            user?.(state, previous);
            if (circuitChannel.hasSubscribers) circuitChannel.publish({ origin, state, previous });
          },
        });
      }
      breakers.set(origin, breaker);
    }
    return breaker;
  };

  return { budgetFor, breakerFor, needsOrigin: budgetOption !== false || breakerOption !== false };
}
