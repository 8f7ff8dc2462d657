// How a response body is kept with its key: as text when small, gzip-compressed above a threshold,
// and not at all above a cap (the replay then answers status and headers with an empty body and
// `Idempotent-Body-Omitted: true`, so the client still learns the outcome and where the resource is).
import { gunzipSync, gzipSync } from 'node:zlib';

/** The replay header that says the original body was too large to keep. */
export const BODY_OMITTED_HEADER = 'idempotent-body-omitted';

export type BodyEncoding = 'text' | 'gzip' | 'omitted';

export interface BodyLimits {
  /** Bodies larger than this (UTF-8 bytes) are stored gzip-compressed. */
  compressAboveBytes: number;
  /** Bodies larger than this as stored (after compression) are not stored. */
  maxStoredBodyBytes: number;
}

export interface EncodedBody {
  /** The `body` column: the text, or null when compressed or omitted. */
  text: string | null;
  /** The `body_gzip` column. */
  gzip: Buffer | null;
  /** The `body_encoding` column: null for text (the form of every row stored before compression). */
  column: 'gzip' | 'omitted' | null;
  encoding: BodyEncoding;
  /** The body's size as the handler answered it, UTF-8 bytes. */
  bodyBytes: number;
  /** What the body takes in the row: text bytes, compressed bytes, or 0. */
  storedBytes: number;
}

export function encodeBody(body: string, limits: BodyLimits): EncodedBody {
  const bodyBytes = Buffer.byteLength(body);
  if (bodyBytes <= limits.compressAboveBytes && bodyBytes <= limits.maxStoredBodyBytes)
    return { text: body, gzip: null, column: null, encoding: 'text', bodyBytes, storedBytes: bodyBytes };
  const gzip = bodyBytes > limits.compressAboveBytes ? gzipSync(body) : undefined;
  // Compression that does not pay (already compressed or random data) keeps the text.
  if (gzip && gzip.length < bodyBytes && gzip.length <= limits.maxStoredBodyBytes)
    return { text: null, gzip, column: 'gzip', encoding: 'gzip', bodyBytes, storedBytes: gzip.length };
  if (bodyBytes <= limits.maxStoredBodyBytes)
    return { text: body, gzip: null, column: null, encoding: 'text', bodyBytes, storedBytes: bodyBytes };
  return { text: null, gzip: null, column: 'omitted', encoding: 'omitted', bodyBytes, storedBytes: 0 };
}

/** The stored columns back to a body; `omitted` when it was not kept. */
export function decodeBody(row: {
  body: string | null;
  body_gzip?: Uint8Array | null;
  body_encoding?: string | null;
}): { body: string; omitted: boolean } {
  if (row.body_encoding === 'gzip' && row.body_gzip)
    return { body: gunzipSync(row.body_gzip).toString('utf8'), omitted: false };
  if (row.body_encoding === 'omitted') return { body: '', omitted: true };
  return { body: row.body ?? '', omitted: false };
}
