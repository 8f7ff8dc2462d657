/**
 * Request headers as the frameworks hand them over: a Fetch `Headers` (Hono, Workers), or a plain
 * object such as Node's `IncomingHttpHeaders` (Fastify, Express), where a repeated header may be an
 * array. Names are matched case-insensitively.
 */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Every value of header `name` (lower-case), each trimmed; empty values dropped. */
export function headerValues(headers: HeadersLike, name: string): string[] {
  let value: string | readonly string[] | null | undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') {
    value = (headers as { get(name: string): string | null }).get(name);
  } else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    value = record[name];
    if (value === undefined) {
      // Node lower-cases incoming names; hand-built objects (tests, proxies) may not.
      for (const key of Object.keys(record)) {
        if (key.toLowerCase() === name) {
          value = record[key];
          break;
        }
      }
    }
  }
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? [] : [trimmed];
  }
  const list = typeof value === 'string' ? [value] : value;
  return list.map((v) => String(v).trim()).filter((v) => v !== '');
}
