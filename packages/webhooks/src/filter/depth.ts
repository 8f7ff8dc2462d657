// How deep a payload nests, stopping at a bound: PostgreSQL parses the payload as jsonb to filter
// it, and refuses one nested past its stack (thousands of levels), which would fail the publish.
// A payload deeper than FILTER_MAX_DATA_DEPTH is not filtered: it reaches no filtered endpoint.

/** The deepest payload a filter is evaluated on (containers nested in containers). */
export const FILTER_MAX_DATA_DEPTH = 1000;

/** Whether `value` (as JSON.stringify sees it: `toJSON` is followed) nests deeper than `max`. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length > 0; depth++) {
    const next: unknown[] = [];
    for (let item of level) {
      if (
        typeof item === 'object' &&
        item !== null &&
        typeof (item as { toJSON?: unknown }).toJSON === 'function'
      ) {
        item = (item as { toJSON: () => unknown }).toJSON();
      }
      if (typeof item !== 'object' || item === null) continue;
      if (depth >= max) return true;
      for (const v of Array.isArray(item) ? item : Object.values(item)) next.push(v);
    }
    level = next;
  }
  return false;
}
