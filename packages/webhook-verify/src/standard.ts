// Standard Webhooks 1.0 (standardwebhooks.com, spec/standard-webhooks.md):
//   webhook-id: msg_…
//   webhook-timestamp: 1674087231
//   webhook-signature: v1,<base64 HMAC-SHA256> v1a,<base64 Ed25519>   (space-delimited list)
// signed content: `${id}.${timestamp}.${body}`.

import { fromBase64 } from './encoding.js';
import { fail, WebhookErrorCode } from './errors.js';
import { type HeadersLike, headerValues } from './headers.js';
import { type Candidate, type ParsedHeaders, TIMESTAMP } from './parsed.js';

function required(headers: HeadersLike, name: string): string {
  const value = headerValues(headers, name)[0];
  if (value === undefined) fail(WebhookErrorCode.MissingHeader, `the ${name} header is missing`);
  return value;
}

export function parseStandard(headers: HeadersLike): ParsedHeaders {
  const signature = headerValues(headers, 'webhook-signature');
  if (signature.length === 0) fail(WebhookErrorCode.MissingHeader, 'the webhook-signature header is missing');
  const id = required(headers, 'webhook-id');
  const timestamp = required(headers, 'webhook-timestamp');
  if (!TIMESTAMP.test(timestamp)) {
    fail(
      WebhookErrorCode.BadTimestamp,
      `webhook-timestamp ${JSON.stringify(timestamp)} is not a unix time in seconds`,
    );
  }
  const seen = new Set<string>();
  const candidates: Candidate[] = [];
  let entries = 0;
  for (const raw of signature.join(' ').split(/\s+/)) {
    // Node joins a repeated header with ", "; a base64 signature never ends with a comma.
    const token = raw.endsWith(',') ? raw.slice(0, -1) : raw;
    const comma = token.indexOf(',');
    if (comma <= 0) continue;
    entries++;
    const version = token.slice(0, comma);
    if ((version !== 'v1' && version !== 'v1a') || seen.has(token)) continue; // other versions: ignored
    seen.add(token);
    candidates.push({ version, bytes: fromBase64(token.slice(comma + 1)) });
  }
  if (entries === 0) {
    fail(WebhookErrorCode.MalformedHeader, 'webhook-signature has no "version,signature" entry');
  }
  return { format: 'standard', id, timestamp: Number(timestamp), prefix: `${id}.${timestamp}.`, candidates };
}

/** The `webhook-signature` value for these signatures (already `v1,…` / `v1a,…`). */
export function formatStandard(signatures: readonly string[]): string {
  return signatures.join(' ');
}
