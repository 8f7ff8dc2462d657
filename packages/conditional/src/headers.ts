/**
 * Request headers as any of the three frameworks hold them: Node's `IncomingHttpHeaders` (Fastify,
 * Express; lower-case names), or a Fetch `Headers` (Hono's `c.req.raw.headers`).
 */
export type HeaderSource =
  | { get(name: string): string | null | undefined }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * One header's value (lower-case name); several lines are joined with ", " (RFC 9110 §5.3).
 * @example readHeader(req.headers, 'if-match') // '"v7", "v8"' or undefined
 */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const value = (headers as { get(name: string): string | null | undefined }).get(name);
    return value ?? undefined;
  }
  const value = (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}
