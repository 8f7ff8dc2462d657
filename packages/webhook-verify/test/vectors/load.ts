// Reads the JSON vectors shared by sign.test.ts and verify.test.ts.
import { readFileSync } from 'node:fs';
import type { Secret, WebhookFormat } from '../../src/index.js';

type JsonSecret = string | { hex: string };

export interface SuretyVector {
  name: string;
  format: WebhookFormat;
  id: string;
  timestamp: number;
  body: string;
  signingSecrets: Secret[];
  verifySecrets: Secret[];
  headers: Record<string, string>;
  /** Seconds since the epoch. */
  now: number;
  toleranceSeconds?: number;
  signed: boolean;
  expect: string;
  secretIndex?: number;
  /** What a valid one's `idSigned` is. */
  idSigned: boolean;
}

const read = (name: string) => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8'));
const secret = (s: JsonSecret): Secret =>
  typeof s === 'string' ? s : Uint8Array.from(Buffer.from(s.hex, 'hex'));

export const suretyVectors: SuretyVector[] = read('./surety.json').vectors.map(
  (v: SuretyVector & { signingSecrets: JsonSecret[]; verifySecrets: JsonSecret[] }) => ({
    ...v,
    signingSecrets: v.signingSecrets.map(secret),
    verifySecrets: v.verifySecrets.map(secret),
  }),
);

export interface PublishedVector {
  name: string;
  id: string;
  timestamp: number;
  body: string;
  secret: string;
  signature: string;
}

export const standardWebhooks: {
  vectors: PublishedVector[];
  failures: { name: string; signature: string; expect: string }[];
  multiSignature: string[];
} = read('./standard-webhooks.json');
