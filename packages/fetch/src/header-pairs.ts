/** A call's headers as [name, value] pairs, names as the caller wrote them. */
export type HeaderPairs = [string, string][];

/** The pairs of any `HeadersInit` (array, `Headers`, record), copied so the call can add to them. */
export function toPairs(headers: HeadersInit | undefined | null): HeaderPairs {
  if (headers == null) return [];
  if (Array.isArray(headers)) return headers.map((pair) => [pair[0]!, pair[1]!]);
  if (typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function') {
    const pairs: HeaderPairs = [];
    (headers as Headers).forEach((value, name) => {
      pairs.push([name, value]);
    });
    return pairs;
  }
  return Object.entries(headers as Record<string, string>);
}

/** The value of the first pair named `lowerName` (given lower-cased), whatever the pair's case. */
export function findHeader(pairs: HeaderPairs, lowerName: string): string | undefined {
  for (const [name, value] of pairs) if (name.toLowerCase() === lowerName) return value;
  return undefined;
}

/** A header-name option, lower-cased; `false` (header turned off) as it is. */
export function lower(name: string | false): string | false {
  return name === false ? false : name.toLowerCase();
}
