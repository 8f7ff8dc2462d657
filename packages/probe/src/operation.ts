/** The operation under test, and the requests built from it. */
import { randomUUID } from 'node:crypto';
import type { Client, Exchange, Request } from './client.js';

export interface Operation {
  url: string;
  method: string;
  /** Sent with every request (the auth header, a content type). */
  headers: Record<string, string>;
  /** The body, the same in every request unless a rule needs another. */
  body?: string;
  /** A second valid body, for the key-reuse rule; derived from `body` when absent. */
  altBody?: string;
}

export interface Context {
  client: Client;
  operation: Operation;
  /** An original slower than this leaves no doubt that its duplicates arrived while it ran. */
  inFlightMs: number;
  /** How many concurrent duplicates the in-flight rules send. */
  duplicates: number;
  /** Set by the replay experiment: the operation's own run time, and a replay's round trip. */
  timing?: { executionMs: number; replayMs: number };
}

/** Headers for one request: the operation's, a JSON content type when there is a body, the key. */
export function request(
  op: Operation,
  extra: Record<string, string | undefined> = {},
  body: string | undefined = op.body,
): Request {
  const headers: Record<string, string> = { ...op.headers };
  const has = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
  if (body !== undefined && !has('content-type')) headers['content-type'] = 'application/json';
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) headers[name] = value;
  return { method: op.method, url: op.url, headers, ...(body !== undefined ? { body } : {}) };
}

export const newKey = (): string => `probe-${randomUUID()}`;

export const is2xx = (r: Exchange): boolean => r.status >= 200 && r.status < 300;
export const is4xx = (r: Exchange): boolean => r.status >= 400 && r.status < 500;

/** The same answer: status and body byte for byte. */
export const sameAnswer = (a: Exchange, b: Exchange): boolean => a.status === b.status && a.body === b.body;

/** An answer that says it is a replay. */
export const markedReplay = (r: Exchange): boolean =>
  r.headers['idempotent-replayed']?.toLowerCase() === 'true';

/** `201 {"id":"pay_…` for details. */
export function brief(r: Exchange): string {
  const body = r.body.replace(/\s+/g, ' ').trim();
  return `${r.status}${body ? ` ${body.length > 60 ? `${body.slice(0, 57)}…` : body}` : ''}`;
}

/**
 * Another valid-looking body: the first number in the JSON incremented, else the first string of
 * digits, else the first string with "-2" appended. Undefined when there is nothing to change.
 */
export function deriveAltBody(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return `${body} `;
  }
  const pass = (test: (v: unknown) => boolean, change: (v: unknown) => unknown) => {
    let done = false;
    const walk = (v: unknown): unknown => {
      if (done) return v;
      if (test(v)) {
        done = true;
        return change(v);
      }
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object')
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    const out = walk(value);
    return done ? JSON.stringify(out) : undefined;
  };
  return (
    pass(
      (v) => typeof v === 'number',
      (v) => (v as number) + 1,
    ) ??
    pass(
      (v) => typeof v === 'string' && /^\d{1,15}$/.test(v),
      (v) => String(Number(v) + 1),
    ) ??
    pass(
      (v) => typeof v === 'string',
      (v) => `${v as string}-2`,
    )
  );
}
