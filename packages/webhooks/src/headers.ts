// An endpoint's custom headers (issue 19): sent with every attempt, checked when they are set. A
// name the engine sets or that changes how the request is framed, routed or traced is refused, as
// is anything that is not a valid header line (RFC 9110 §5.1 token names; visible ASCII values).
import { InvalidHeadersError } from './errors.js';

/** Most custom headers an endpoint may have. */
export const MAX_HEADERS = 20;
/** Longest name and value, in characters (ASCII: bytes). */
export const MAX_HEADER_NAME = 100;
export const MAX_HEADER_VALUE = 1000;
/** Most bytes of all names and values together. */
export const MAX_HEADERS_SIZE = 4096;

/**
 * Names an endpoint may not set (compared case-insensitively): the signature headers and the
 * others the engine sends (content-type, user-agent, the W3C trace context), and those that frame,
 * route or hop the request (host, content-length, connection, transfer-encoding and the other
 * hop-by-hop headers, expect, content-encoding).
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'user-agent',
  'traceparent',
  'tracestate',
  'baggage',
  'host',
  'content-length',
  'content-encoding',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'http2-settings',
]);
/** Prefixes an endpoint may not use: Standard Webhooks' (`webhook-`), Surety's own, proxies'. */
export const RESERVED_HEADER_PREFIXES: readonly string[] = ['webhook-', 'surety-', 'proxy-'];

// RFC 9110 §5.6.2: token = 1*tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Visible ASCII, spaces and tabs inside; no CR, LF, NUL or other control character.
const VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;

const problem = (name: string, message: string) => ({
  path: `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`,
  message,
});

/** Why `name` cannot be a custom header, or undefined when it can. */
function nameProblem(name: string): string | undefined {
  if (!TOKEN.test(name)) return 'is not a header name (RFC 9110 token characters only)';
  if (name.length > MAX_HEADER_NAME) return `is longer than ${MAX_HEADER_NAME} characters`;
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower) || RESERVED_HEADER_PREFIXES.some((p) => lower.startsWith(p))) {
    return 'is reserved: the engine sets it, or it changes how the request is framed or routed';
  }
  return undefined;
}

/**
 * Returns when every name and value may be sent; otherwise throws InvalidHeadersError listing every
 * problem (`errors`, JSON pointers under `/headers`).
 */
export function checkHeaders(headers: unknown): asserts headers is Record<string, string> {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new InvalidHeadersError('headers must be an object of header names to string values', [
      { path: '/headers', message: 'must be an object' },
    ]);
  }
  const errors: { path: string; message: string }[] = [];
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) {
    errors.push({ path: '/headers', message: `has ${entries.length} headers; at most ${MAX_HEADERS}` });
  }
  const seen = new Set<string>();
  let size = 0;
  for (const [name, value] of entries) {
    const bad = nameProblem(name);
    if (bad) errors.push(problem(name, `${JSON.stringify(name)} ${bad}`));
    if (seen.has(name.toLowerCase())) {
      errors.push(problem(name, `${JSON.stringify(name)} is given twice (names are case-insensitive)`));
    }
    seen.add(name.toLowerCase());
    if (typeof value !== 'string') {
      errors.push(problem(name, 'must be a string'));
      continue;
    }
    if (!VALUE.test(value)) {
      errors.push(
        problem(
          name,
          'must be visible ASCII, with spaces or tabs only inside (no CR, LF, NUL or control characters)',
        ),
      );
    } else if (value.length > MAX_HEADER_VALUE) {
      errors.push(problem(name, `is longer than ${MAX_HEADER_VALUE} characters`));
    }
    size += name.length + value.length;
  }
  if (size > MAX_HEADERS_SIZE) {
    errors.push({
      path: '/headers',
      message: `names and values add up to ${size} bytes; at most ${MAX_HEADERS_SIZE}`,
    });
  }
  if (errors.length > 0) {
    throw new InvalidHeadersError(errors.map((e) => `${e.path}: ${e.message}`).join('; '), errors);
  }
}
