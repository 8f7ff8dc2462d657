import { BODY_OMITTED_HEADER, decodeBody } from './stored-body.js';
import type { Seen } from './types.js';

/** A stored row as the decision reads it (expiry already compared with the engine's clock). */
export interface Row {
  fingerprint: string | null;
  state: 'in_progress' | 'completed' | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  body_gzip?: Uint8Array | null;
  body_encoding?: string | null;
  expired: boolean | null;
  lease_expired: boolean | null;
}

/**
 * A row as the claim returns it, an element of its JSON array (timestamps compared with the engine's
 * clock in JS; `body_gzip` in base64, whatever the server's bytea_output).
 */
export interface ClaimRow {
  tenant: string | null;
  key: string | null;
  fingerprint: string | null;
  state: 'in_progress' | 'completed' | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  body_gzip?: string | null;
  body_encoding?: string | null;
  expires_at: Date | string | null;
  lease_expires_at: Date | string | null;
}

/** A json column as the driver hands it: parsed, or (a driver that leaves json unparsed) its text. */
export const jsonColumn = <T>(value: T | string | null): T | null =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value;

export const toRow = (r: ClaimRow, nowMs: number): Row => ({
  fingerprint: r.fingerprint,
  state: r.state,
  status: r.status,
  headers: r.headers,
  body: r.body,
  body_gzip: typeof r.body_gzip === 'string' ? Buffer.from(r.body_gzip, 'base64') : null,
  body_encoding: r.body_encoding ?? null,
  expired: r.expires_at === null ? null : new Date(r.expires_at).getTime() <= nowMs,
  lease_expired: r.lease_expires_at === null ? null : new Date(r.lease_expires_at).getTime() <= nowMs,
});

/**
 * What a stored row means for this request: a replay, a mismatch, or in flight; undefined when the
 * request may run (no row, an expired one, or the lapsed lease of a crashed owner). Pure.
 */
export function decide(input: {
  row: Row;
  fingerprint: string;
  retryAfterSeconds: number;
}): Seen | undefined {
  const { row, fingerprint, retryAfterSeconds } = input;
  if (row.state === null || row.expired) return undefined;
  if (row.state === 'in_progress') {
    if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
    if (row.lease_expired) return undefined;
    return { kind: 'in_flight', retryAfterSeconds };
  }
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  const { body, omitted } = decodeBody(row);
  const headers = row.headers ?? {};
  return {
    kind: 'replayed',
    response: {
      status: row.status!,
      headers: omitted ? { ...headers, [BODY_OMITTED_HEADER]: 'true' } : headers,
      body,
    },
  };
}
