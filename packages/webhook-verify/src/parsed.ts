import type { WebhookFormat } from './keys.js';

/** One signature read from a header, decoded to bytes (undefined when it was not valid hex/base64). */
export interface Candidate {
  version: 'v1' | 'v1a';
  bytes: Uint8Array | undefined;
}

/** What a format's parser reads from the headers: everything verification needs but the secrets. */
export interface ParsedHeaders {
  format: WebhookFormat;
  id: string | undefined;
  /** Seconds since the epoch. */
  timestamp: number;
  /** The bytes signed before the body, e.g. `"1700000000."`. */
  prefix: string;
  candidates: Candidate[];
}

/** Whole seconds since the epoch, as sent; 12 digits reach the year 33658. */
export const TIMESTAMP = /^\d{1,12}$/;
