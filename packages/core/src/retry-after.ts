// Per RFC 9110 §10.2.3, Retry-After is either delay-seconds (1*DIGIT) or an HTTP-date.
const DELTA_SECONDS = /^\d+$/;

/**
 * Parses a `Retry-After` value into milliseconds from `nowEpochMs`. Returns `undefined` for a missing or
 * invalid value, which the client then ignores (and falls back to its own backoff). A date in the past
 * gives 0; delay-seconds of any length are capped at `Number.MAX_SAFE_INTEGER` ms.
 * @param nowEpochMs the current wall-clock time (`Date.now()`), needed for the HTTP-date form.
 * @example
 * parseRetryAfter('120', Date.now()); // 120000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT')); // 60000
 */
export function parseRetryAfter(value: string | null | undefined, nowEpochMs: number): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  // Any number of digits: a value too long to mean anything asks for "much longer than I will wait",
  // and is capped (the caller's deadline then decides), never read as Infinity or ignored.
  if (DELTA_SECONDS.test(trimmed)) return Math.min(Number(trimmed) * 1000, Number.MAX_SAFE_INTEGER);
  // Date.parse is lenient: it would read "1.5" or "-3" as dates. Every HTTP-date form (IMF-fixdate,
  // RFC 850, asctime) names the month, so a value without letters is not one.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowEpochMs);
}
