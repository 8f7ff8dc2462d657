import { problemBody } from '@surety/core';
import { DeadlineExceededError } from './errors.js';
import { DEADLINE_HEADER } from './headers.js';

/** Header maps as servers hold them: Node's `IncomingHttpHeaders` (lower-case names) or a `Headers`. */
export type HeaderSource =
  | Headers
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

/** Options of `readDeadline`. */
export interface ReadDeadlineOptions {
  /** The header to read. @default "Surety-Timeout-Ms" */
  header?: string;
  /**
   * The most a caller may ask for, in milliseconds: a larger value is lowered to this, so no client can
   * make a server hold work open for an hour.
   * @default 300000
   */
  maxMs?: number;
  /**
   * Milliseconds kept back from the caller's budget for the answer's trip back; the handler gets
   * `header value - reserveMs`.
   * @default 0
   */
  reserveMs?: number;
  /** The budget when the header is absent or invalid; `undefined` leaves such requests unbounded. @default undefined */
  defaultMs?: number;
}

/** @default 300000 */
export const DEFAULT_MAX_DEADLINE_MS = 300_000;

const DIGITS = /^\d{1,15}$/;

function headerValues(headers: HeaderSource, name: string): string | readonly string[] | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined>;
  return record[name.toLowerCase()] ?? record[name];
}

/**
 * Reads the caller's remaining time from the deadline header (`Surety-Timeout-Ms` by default): the
 * milliseconds this server has before the caller stops waiting, after `reserveMs`, capped at `maxMs`.
 * `undefined` when the header is absent or not a plain non-negative integer (and no `defaultMs` is set);
 * several values (repeated headers, or a comma-joined list) give the smallest. 0 means the caller has
 * already given up: answer at once without doing the work.
 * @example
 * const ms = readDeadline(req.headers);
 * const rows = await db.query({ text: sql, signal: AbortSignal.timeout(ms ?? 30_000) });
 */
export function readDeadline(headers: HeaderSource, options: ReadDeadlineOptions = {}): number | undefined {
  const raw = headerValues(headers, options.header ?? DEADLINE_HEADER);
  let smallest: number | undefined;
  const values =
    raw === undefined ? [] : typeof raw === 'string' ? raw.split(',') : raw.flatMap((v) => v.split(','));
  for (const value of values) {
    const trimmed = value.trim();
    if (!DIGITS.test(trimmed)) continue;
    const ms = Number(trimmed);
    if (smallest === undefined || ms < smallest) smallest = ms;
  }
  const budget = smallest ?? options.defaultMs;
  if (budget === undefined) return undefined;
  return Math.max(0, Math.min(budget, options.maxMs ?? DEFAULT_MAX_DEADLINE_MS) - (options.reserveMs ?? 0));
}

/**
 * An AbortSignal that aborts, with a `DeadlineExceededError` as its reason, when the caller's deadline
 * passes; `undefined` when the request carries no deadline. Hand it to the database driver and to
 * downstream calls so that work nobody waits for stops.
 * @example
 * const signal = deadlineSignal(req.headers);
 * await fetch(downstreamUrl, { signal });
 */
export function deadlineSignal(
  headers: HeaderSource,
  options: ReadDeadlineOptions = {},
): AbortSignal | undefined {
  const ms = readDeadline(headers, options);
  if (ms === undefined) return undefined;
  const controller = new AbortController();
  if (ms === 0) {
    controller.abort(new DeadlineExceededError(0));
    return controller.signal;
  }
  setTimeout(() => controller.abort(new DeadlineExceededError(ms)), ms).unref();
  return controller.signal;
}

/** The RFC 9457 content type of `deadlineProblem` bodies (`@surety/core`'s, re-exported). */
export { PROBLEM_CONTENT_TYPE } from '@surety/core';

/** What `deadlineProblem` describes. */
export interface DeadlineProblemInput {
  /** The caller's deadline, as read from the request. */
  deadlineMs: number;
  /** The request's path, as the problem's `instance`. */
  instance?: string;
  /** @default 504 */
  status?: number;
}

/**
 * The problem+json body a server answers with when the caller's deadline passed first, with the same
 * stable `code` as `DeadlineExceededError`. Sent with status 504, as gRPC gateways map DEADLINE_EXCEEDED.
 * @example
 * res.writeHead(504, { 'content-type': PROBLEM_CONTENT_TYPE }).end(deadlineProblem({ deadlineMs, instance: req.url }));
 */
export function deadlineProblem(input: DeadlineProblemInput): string {
  const { deadlineMs, instance, status = 504 } = input;
  return problemBody(
    {
      status,
      // HTTP problem codes are lower case in every Surety API; the error class keeps SURETY_DEADLINE_EXCEEDED.
      code: 'deadline_exceeded',
      title: 'Deadline exceeded',
      detail: `The caller stops waiting after ${deadlineMs} ms (${DEADLINE_HEADER}); no complete answer was ready by then.`,
    },
    instance,
  );
}
