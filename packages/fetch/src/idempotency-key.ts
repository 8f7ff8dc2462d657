import { randomUUID } from 'node:crypto';
import { findHeader, type HeaderPairs } from './header-pairs.js';
import { IDEMPOTENCY_KEY_HEADER } from './headers.js';

/**
 * The Idempotency-Key of one call, added to `pairs` when this client chooses it. A key already in the
 * caller's headers is never replaced; `"auto"` makes one (a UUID v4) only for a method that is not
 * retryable without it; a string is sent as it is; `false` sends none. The key is chosen once per call,
 * so every attempt of the call carries the same one.
 */
export function resolveIdempotencyKey(
  pairs: HeaderPairs,
  options: { setting: 'auto' | false | string; retryMethods: ReadonlySet<string>; verb: string },
): string | undefined {
  let key = findHeader(pairs, 'idempotency-key');
  if (key === undefined) {
    const { setting } = options;
    if (setting === 'auto') {
      if (!options.retryMethods.has(options.verb)) key = randomUUID();
    } else if (setting !== false) {
      key = setting;
    }
    if (key !== undefined) pairs.push([IDEMPOTENCY_KEY_HEADER, key]);
  }
  return key;
}
