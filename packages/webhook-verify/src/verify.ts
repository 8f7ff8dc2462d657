import { type CryptoBackend, defaultBackend, syncBackend } from './crypto.js';
import { fail, WebhookErrorCode } from './errors.js';
import { type HeadersLike, headerValues } from './headers.js';
import { type PreparedKey, prepareKeys, type Secret, type WebhookFormat } from './keys.js';
import type { ParsedHeaders } from './parsed.js';
import { parseStandard } from './standard.js';
import { looksLikeSurety, parseSurety, suretyId } from './surety.js';
import { traceVerify } from './tracing.js';

/** The default timestamp tolerance, in seconds, either side of now. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifierOptions {
  /**
   * The secret, or during a rotation every secret that is still valid: a webhook verifies when
   * any signature in its header matches any of them.
   */
  secrets: Secret | readonly Secret[];
  /**
   * Which format to expect. `"auto"` reads the `webhook-signature` value: `t=…,v1=…` is the Surety
   * scheme, `v1,…` / `v1a,…` entries Standard Webhooks.
   * @default "auto"
   */
  format?: 'auto' | WebhookFormat;
  /**
   * How far the signed timestamp may be from now, either way, in seconds. Beyond it the webhook is
   * refused as a replay (too old) or forged (too new). `Infinity` turns the check off.
   * @default 300
   */
  toleranceSeconds?: number;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  now?: () => number;
  /**
   * The crypto implementation. Tests pass `createWebBackend(crypto.subtle)` to exercise the Web
   * Crypto path on Node.
   * @internal
   * @default node:crypto where present, else Web Crypto
   */
  backend?: CryptoBackend;
}

export interface VerifyInput extends VerifierOptions {
  /** The body exactly as received: bytes, or the string those bytes decode to (UTF-8). Never re-serialised JSON. */
  body: string | Uint8Array;
  headers: HeadersLike;
}

/** What a successful verification established. */
export interface VerifiedWebhook {
  format: WebhookFormat;
  /**
   * The event id to de-duplicate on. Standard Webhooks signs `webhook-id`. The Surety scheme signs
   * the body, whose top-level `id` (the envelope's) is then the id, and a `webhook-id` header that
   * differs from it fails with `SURETY_WEBHOOK_ID_MISMATCH`; for a body without one, the header's.
   */
  id: string | undefined;
  /** Whether the signature covers `id`; false only for a Surety-scheme body without a top-level `id`. */
  idSigned: boolean;
  /** The signed timestamp, seconds since the epoch. */
  timestamp: number;
  /** Which kind of signature matched. */
  signature: 'v1' | 'v1a';
  /** Index in `secrets` of the secret that matched: a non-zero index means the sender still signs with an old one. */
  secretIndex: number;
}

/** Verifies webhooks with one set of options. */
export interface Verifier {
  /** Resolves with what was verified; rejects with a `WebhookVerificationError`. */
  verify(body: string | Uint8Array, headers: HeadersLike): Promise<VerifiedWebhook>;
  /** The same, synchronously; needs node:crypto (Node, Bun, Deno). */
  verifySync(body: string | Uint8Array, headers: HeadersLike): VerifiedWebhook;
}

type Prepared = { keys: PreparedKey[] } | { error: unknown };

function prepare(secrets: Secret | readonly Secret[], format: WebhookFormat): Prepared {
  try {
    return { keys: prepareKeys(secrets, format) };
  } catch (error) {
    return { error };
  }
}

function parse(headers: HeadersLike, format: 'auto' | WebhookFormat): ParsedHeaders {
  if (format === 'surety') return parseSurety(headers);
  if (format === 'standard') return parseStandard(headers);
  const signature = headerValues(headers, 'webhook-signature');
  if (signature.length === 0) fail(WebhookErrorCode.MissingHeader, 'the webhook-signature header is missing');
  return looksLikeSurety(signature.join(',')) ? parseSurety(headers) : parseStandard(headers);
}

function checkTimestamp(parsed: ParsedHeaders, toleranceSeconds: number, nowMs: number): void {
  const now = Math.floor(nowMs / 1000);
  if (now - parsed.timestamp > toleranceSeconds) {
    fail(
      WebhookErrorCode.TimestampTooOld,
      `the webhook timestamp is ${now - parsed.timestamp} s old; the tolerance is ${toleranceSeconds} s`,
    );
  }
  if (parsed.timestamp - now > toleranceSeconds) {
    fail(
      WebhookErrorCode.TimestampTooNew,
      `the webhook timestamp is ${parsed.timestamp - now} s in the future; the tolerance is ${toleranceSeconds} s`,
    );
  }
}

function result(
  parsed: ParsedHeaders,
  body: string | Uint8Array,
  key: PreparedKey,
  version: 'v1' | 'v1a',
): VerifiedWebhook {
  const { id, idSigned } =
    parsed.format === 'surety' ? suretyId(parsed.id, body) : { id: parsed.id, idSigned: true };
  return {
    format: parsed.format,
    id,
    idSigned,
    timestamp: parsed.timestamp,
    signature: version,
    secretIndex: key.index,
  };
}

function noMatch(): never {
  return fail(
    WebhookErrorCode.NoMatchingSignature,
    'no signature in webhook-signature matches the secret(s)',
  );
}

/**
 * Makes a verifier: secrets are decoded once, so this is the form to keep per endpoint.
 * Checks run in this order: headers present and well-formed, timestamp within tolerance, then
 * signatures, compared in constant time; the first failure throws a `WebhookVerificationError`.
 * @example
 * const verifier = createVerifier({ secrets: [process.env.WEBHOOK_SECRET!] });
 * const { id } = await verifier.verify(rawBody, request.headers);
 */
export function createVerifier(options: VerifierOptions): Verifier {
  const format = options.format ?? 'auto';
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Date.now;
  if (!(toleranceSeconds >= 0)) throw new TypeError('toleranceSeconds must be a number >= 0');
  // Decode secrets up front so a misconfiguration shows at start-up, not on the first delivery.
  const prepared: Record<WebhookFormat, Prepared | undefined> = {
    surety: format === 'standard' ? undefined : prepare(options.secrets, 'surety'),
    standard: format === 'surety' ? undefined : prepare(options.secrets, 'standard'),
  };
  const usable = Object.values(prepared).filter((p): p is Prepared => p !== undefined);
  const firstError = usable.find((p) => 'error' in p);
  if (firstError && usable.every((p) => 'error' in p)) throw (firstError as { error: unknown }).error;
  const keysFor = (parsed: ParsedHeaders): PreparedKey[] => {
    const p = prepared[parsed.format]!;
    if ('error' in p) throw p.error;
    return p.keys;
  };
  const start = (body: string | Uint8Array, headers: HeadersLike) => {
    if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError(
        'body must be the raw request body (string, Buffer or Uint8Array), not a parsed object',
      );
    }
    const parsed = parse(headers, format);
    checkTimestamp(parsed, toleranceSeconds, now());
    return { parsed, keys: keysFor(parsed) };
  };

  const verifier: Verifier = {
    async verify(body, headers) {
      const { parsed, keys } = start(body, headers);
      const backend = options.backend ?? defaultBackend();
      for (const key of keys) {
        if (key.kind === 'hmac') {
          let mac: Uint8Array | undefined;
          for (const candidate of parsed.candidates) {
            if (candidate.version !== 'v1' || !candidate.bytes) continue;
            mac ??= await backend.hmac(key, parsed.prefix, body);
            if (backend.equal(mac, candidate.bytes)) return result(parsed, body, key, 'v1');
          }
        } else {
          for (const candidate of parsed.candidates) {
            if (candidate.version !== 'v1a' || !candidate.bytes) continue;
            if (await backend.ed25519Verify(key, parsed.prefix, body, candidate.bytes)) {
              return result(parsed, body, key, 'v1a');
            }
          }
        }
      }
      return noMatch();
    },
    verifySync(body, headers) {
      const backend = options.backend?.name === 'node' ? options.backend : syncBackend();
      const { parsed, keys } = start(body, headers);
      for (const key of keys) {
        if (key.kind === 'hmac') {
          let mac: Uint8Array | undefined;
          for (const candidate of parsed.candidates) {
            if (candidate.version !== 'v1' || !candidate.bytes) continue;
            mac ??= backend.hmac(key, parsed.prefix, body) as Uint8Array;
            if (backend.equal(mac, candidate.bytes)) return result(parsed, body, key, 'v1');
          }
        } else {
          for (const candidate of parsed.candidates) {
            if (candidate.version !== 'v1a' || !candidate.bytes) continue;
            if (backend.ed25519Verify(key, parsed.prefix, body, candidate.bytes) as boolean) {
              return result(parsed, body, key, 'v1a');
            }
          }
        }
      }
      return noMatch();
    },
  };
  // Each verification in a span when an OpenTelemetry SDK is registered (tracing.ts).
  return {
    verify: (body, headers) => traceVerify(() => verifier.verify(body, headers)),
    verifySync: (body, headers) => traceVerify(() => verifier.verifySync(body, headers)),
  };
}

/**
 * Verifies one webhook: the raw body, its headers, and the secret(s). Auto-detects the format.
 * For a receiver that verifies many, `createVerifier` decodes the secrets once.
 * @example
 * const event = await verify({ body: rawBody, headers: req.headers, secrets: ['whsec_…'] });
 * // event.id → de-duplicate on it; JSON.parse the raw body only now.
 */
export function verify(input: VerifyInput): Promise<VerifiedWebhook> {
  try {
    return createVerifier(input).verify(input.body, input.headers);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * `verify`, synchronously (node:crypto only).
 * @example
 * const { id } = verifySync({ body: rawBody, headers: req.headers, secrets: secret });
 */
export function verifySync(input: VerifyInput): VerifiedWebhook {
  return createVerifier(input).verifySync(input.body, input.headers);
}
