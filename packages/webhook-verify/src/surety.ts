// The Surety scheme (DESIGN.md, "Webhooks"):
//   Webhook-Id: evt_…
//   Webhook-Timestamp: 1700000000
//   Webhook-Signature: t=1700000000,v1=<hex HMAC-SHA256(secret, t + "." + rawBody)>[,v1=<hex>…]
// The same shape as Stripe's Stripe-Signature, so its parsing rules are the ones receivers expect:
// entries in any order, unknown keys ignored (room for a v2), one v1 per active secret.

import { fromHex } from './encoding.js';
import { fail, WebhookErrorCode } from './errors.js';
import { type HeadersLike, headerValues } from './headers.js';
import { type ParsedHeaders, TIMESTAMP } from './parsed.js';

/** True when a `webhook-signature` value is in the Surety `t=…,v1=…` form. */
export function looksLikeSurety(signature: string): boolean {
  return /(?:^|[\s,])(?:t|v1)=/.test(signature);
}

export function parseSurety(headers: HeadersLike): ParsedHeaders {
  const values = headerValues(headers, 'webhook-signature');
  if (values.length === 0) fail(WebhookErrorCode.MissingHeader, 'the Webhook-Signature header is missing');
  const header = values.length === 1 ? values[0]! : values.join(',');
  let t: string | undefined;
  const v1: string[] = [];
  // A plain indexOf walk: this runs on every delivery, and split/Set allocations showed in profiles.
  for (let start = 0; start <= header.length; ) {
    let end = header.indexOf(',', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq > start && eq < end) {
      const key = header.slice(start, eq).trim();
      const value = header.slice(eq + 1, end).trim();
      if (key === 't') {
        if (t !== undefined && t !== value) {
          fail(WebhookErrorCode.MalformedHeader, 'Webhook-Signature has two different t= entries');
        }
        t = value;
      } else if (key === 'v1' && !v1.includes(value)) {
        // Deduplicated: a header repeating one signature 1000 times must not cost 1000 comparisons.
        v1.push(value);
      }
    } // else junk: empty or without a key
    start = end + 1;
  }
  if (t === undefined) fail(WebhookErrorCode.MalformedHeader, 'Webhook-Signature has no t= entry');
  if (v1.length === 0) fail(WebhookErrorCode.MalformedHeader, 'Webhook-Signature has no v1= entry');
  if (!TIMESTAMP.test(t))
    fail(WebhookErrorCode.BadTimestamp, `t=${JSON.stringify(t)} is not a unix time in seconds`);
  const stated = headerValues(headers, 'webhook-timestamp')[0];
  if (stated !== undefined && stated !== t) {
    // Only t= is signed; a different Webhook-Timestamp is a tampered or broken header.
    fail(
      WebhookErrorCode.MalformedHeader,
      'Webhook-Timestamp differs from the t= signed in Webhook-Signature',
    );
  }
  return {
    format: 'surety',
    id: headerValues(headers, 'webhook-id')[0],
    timestamp: Number(t),
    prefix: `${t}.`,
    candidates: v1.map((hex) => ({ version: 'v1', bytes: fromHex(hex) })),
  };
}

/** The `webhook-signature` value for these MACs. */
export function formatSurety(timestamp: number, macs: readonly string[]): string {
  return [`t=${timestamp}`, ...macs.map((mac) => `v1=${mac}`)].join(',');
}

// Keeps a BOM in the text, as a string body would: a body with one is not a JSON object, whichever
// form it came in.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * The event id of a Surety-scheme webhook, and whether the signature covers it. The scheme signs
 * `t` and the body, not `webhook-id`; the body of an event (the envelope) carries the same id as its
 * top-level `id`, which is signed. So the id is the body's when it has one, and a `webhook-id`
 * header that differs is refused: a receiver that de-duplicates on the id cannot be made to run one
 * event twice by a resend under a new header. A body without a top-level string `id` leaves the
 * header's, unsigned (`idSigned: false`). Call only after the signature matched.
 */
export function suretyId(
  headerId: string | undefined,
  body: string | Uint8Array,
): { id: string | undefined; idSigned: boolean } {
  const signed = bodyId(body);
  if (signed === undefined) return { id: headerId, idSigned: false };
  if (headerId !== undefined && headerId !== signed) {
    fail(
      WebhookErrorCode.IdMismatch,
      `webhook-id ${JSON.stringify(headerId)} differs from the signed body's id ${JSON.stringify(signed)}`,
    );
  }
  return { id: signed, idSigned: true };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** `{"id":"` */
const LEAD = [0x7b, QUOTE, 0x69, 0x64, QUOTE, 0x3a, QUOTE];

/**
 * The top-level string `id` of a JSON object body, or undefined. A body that starts with
 * `{"id":"` (our envelope) is read by that first key without parsing the rest: the cost does not
 * grow with the body, whatever the header says. Any other body is parsed once. (A body with two
 * top-level `id` keys, which RFC 8259 leaves undefined, is read by its first when it starts with
 * one, by its last otherwise: one id per body either way.)
 */
export function bodyId(body: string | Uint8Array): string | undefined {
  const lead = leadingId(body);
  return lead === NOT_LEADING ? topLevelId(body) : lead;
}

const NOT_LEADING = Symbol('not leading');

function leadingId(body: string | Uint8Array): string | undefined | typeof NOT_LEADING {
  const at = typeof body === 'string' ? (i: number) => body.charCodeAt(i) : (i: number) => body[i]!;
  if (body.length < LEAD.length) return NOT_LEADING;
  for (let i = 0; i < LEAD.length; i++) if (at(i) !== LEAD[i]) return NOT_LEADING;
  // The closing quote: `"` and `\` are ASCII, and never part of a multi-byte UTF-8 sequence.
  let end = LEAD.length;
  while (end < body.length && at(end) !== QUOTE) end += at(end) === BACKSLASH ? 2 : 1;
  const after = at(end + 1);
  // Not `"…",` or `"…"}`: whitespace or a malformed body; the full parse decides.
  if (end >= body.length || (after !== 0x2c && after !== 0x7d)) return NOT_LEADING;
  const token =
    typeof body === 'string'
      ? body.slice(LEAD.length - 1, end + 1)
      : decoder.decode(body.subarray(LEAD.length - 1, end + 1));
  try {
    return JSON.parse(token) as string;
  } catch {
    return undefined; // a bad escape: not JSON, so no signed id
  }
}

/** The body's top-level `id` when the body is a JSON object with a string `id`. */
function topLevelId(body: string | Uint8Array): string | undefined {
  const text = typeof body === 'string' ? body : decoder.decode(body);
  // JSON's own whitespace only (\s would also take a BOM, which JSON.parse refuses).
  if (!/^[ \t\n\r]*\{/.test(text)) return undefined;
  try {
    const value = JSON.parse(text) as { id?: unknown };
    return typeof value.id === 'string' ? value.id : undefined;
  } catch {
    return undefined;
  }
}
