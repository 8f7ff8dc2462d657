import { type CryptoBackend, defaultBackend, syncBackend } from './crypto.js';
import { toBase64, toHex } from './encoding.js';
import { type PreparedKey, prepareKeys, type Secret, type WebhookFormat } from './keys.js';
import { formatStandard } from './standard.js';
import { bodyId, formatSurety } from './surety.js';

export interface SignInput {
  /**
   * The event id, sent as `webhook-id`. Visible ASCII, 1–255 characters. Standard Webhooks signs it;
   * the Surety scheme signs the body, so a body with a top-level `id` must carry this one.
   */
  id: string;
  /** The exact bytes that will be sent as the request body (a string is sent as UTF-8). */
  body: string | Uint8Array;
  /**
   * Every active secret: one signature is produced per secret, so during a rotation pass the new
   * and the old one and receivers holding either keep verifying.
   */
  secrets: Secret | readonly Secret[];
  /**
   * `"surety"`: `t=…,v1=<hex>`; `"standard"`: Standard Webhooks `v1,<base64>` (and `v1a,…` for
   * `whsk_` Ed25519 keys).
   * @default "surety"
   */
  format?: WebhookFormat;
  /** Seconds since the epoch, or a Date. @default the current time from `now` */
  timestamp?: number | Date;
  /** The clock, in milliseconds since the epoch, used when `timestamp` is absent. @default Date.now */
  now?: () => number;
  /** @internal @default node:crypto where present, else Web Crypto */
  backend?: CryptoBackend;
}

/**
 * The headers to send with a webhook. Names are lower-case (HTTP field names are case-insensitive,
 * and HTTP/2 requires lower case); they are the same for both formats.
 */
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

const ID = /^[\x21-\x7e]{1,255}$/;

interface Plan {
  id: string;
  timestamp: number;
  format: WebhookFormat;
  prefix: string;
  body: string | Uint8Array;
  keys: PreparedKey[];
}

function plan(input: SignInput): Plan {
  const format = input.format ?? 'surety';
  if (format !== 'surety' && format !== 'standard') throw new TypeError(`unknown webhook format: ${format}`);
  if (typeof input.id !== 'string' || !ID.test(input.id)) {
    throw new TypeError('id must be 1-255 visible ASCII characters (no spaces)');
  }
  if (typeof input.body !== 'string' && !(input.body instanceof Uint8Array)) {
    throw new TypeError('body must be the exact bytes to send (string, Buffer or Uint8Array)');
  }
  if (format === 'surety') {
    // Receivers take the event id from the signed body (the header is not signed in this scheme)
    // and refuse a webhook-id that differs: such a webhook would never be accepted.
    const inBody = bodyId(input.body);
    if (inBody !== undefined && inBody !== input.id) {
      throw new TypeError(
        `id ${JSON.stringify(input.id)} differs from the body's top-level id ${JSON.stringify(inBody)}: ` +
          'in the Surety scheme receivers read the id from the signed body',
      );
    }
  }
  const timestamp =
    input.timestamp instanceof Date
      ? Math.floor(input.timestamp.getTime() / 1000)
      : (input.timestamp ?? Math.floor((input.now ?? Date.now)() / 1000));
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new TypeError('timestamp must be whole seconds since the epoch');
  }
  return {
    id: input.id,
    timestamp,
    format,
    prefix: format === 'surety' ? `${timestamp}.` : `${input.id}.${timestamp}.`,
    body: input.body,
    keys: prepareKeys(input.secrets, format),
  };
}

function headers(p: Plan, signatures: readonly Uint8Array[]): WebhookHeaders {
  const signature =
    p.format === 'surety'
      ? formatSurety(p.timestamp, signatures.map(toHex))
      : formatStandard(
          signatures.map((s, i) => `${p.keys[i]!.kind === 'hmac' ? 'v1' : 'v1a'},${toBase64(s)}`),
        );
  return { 'webhook-id': p.id, 'webhook-timestamp': String(p.timestamp), 'webhook-signature': signature };
}

/**
 * Signs an outgoing webhook and returns its headers. Throws `SURETY_WEBHOOK_BAD_SECRET` for a
 * secret the format cannot use, and TypeError for a bad id or timestamp.
 * @example
 * const headers = await sign({ id: event.id, body, secrets: [endpoint.secret] });
 * await fetch(url, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
 * // Standard Webhooks with HMAC and Ed25519 at once:
 * await sign({ id, body, secrets: ['whsec_…', 'whsk_…'], format: 'standard' });
 */
export async function sign(input: SignInput): Promise<WebhookHeaders> {
  const p = plan(input);
  const backend = input.backend ?? defaultBackend();
  const signatures: Uint8Array[] = [];
  for (const key of p.keys) {
    signatures.push(
      await (key.kind === 'hmac'
        ? backend.hmac(key, p.prefix, p.body)
        : backend.ed25519Sign(key, p.prefix, p.body)),
    );
  }
  return headers(p, signatures);
}

/**
 * `sign`, synchronously (node:crypto only).
 * @example
 * const headers = signSync({ id: 'evt_1', body: '{"a":1}', secrets: 'whsec_…', timestamp: 1700000000 });
 */
export function signSync(input: SignInput): WebhookHeaders {
  const p = plan(input);
  const backend = input.backend?.name === 'node' ? input.backend : syncBackend();
  const signatures = p.keys.map(
    (key) =>
      (key.kind === 'hmac'
        ? backend.hmac(key, p.prefix, p.body)
        : backend.ed25519Sign(key, p.prefix, p.body)) as Uint8Array,
  );
  return headers(p, signatures);
}
