// A poll cursor: an opaque token naming a position of one endpoint, with an HMAC under that
// endpoint's own key (migration 000021), so that a consumer can neither forge one nor edit one to
// skip events. `pc_<base64url(position.endpointId)>.<base64url(mac)>`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookError } from '../errors.js';

/** The longest token accepted (a position of 19 digits and an endpoint id of 64 characters fit). */
export const MAX_CURSOR_LENGTH = 200;

const mac = (key: Uint8Array, tenant: string, payload: string) =>
  createHmac('sha256', key).update(`${tenant}\u0000${payload}`).digest().subarray(0, 16);

const invalid = () => new WebhookError('SURETY_INVALID_CURSOR', 'not a cursor this endpoint returned');

/** The token for `position` of the endpoint. */
export function encodeCursor(key: Uint8Array, tenant: string, endpointId: string, position: string): string {
  const payload = `${position}.${endpointId}`;
  return `pc_${Buffer.from(payload).toString('base64url')}.${mac(key, tenant, payload).toString('base64url')}`;
}

/**
 * What a token says, before its MAC is checked: the endpoint it names and its position. Throws
 * WebhookError `SURETY_INVALID_CURSOR` on anything that is not of the token's form.
 */
export function parseCursor(token: string): {
  endpointId: string;
  position: string;
  payload: string;
  mac: string;
} {
  const m = /^pc_([A-Za-z0-9_-]{1,160})\.([A-Za-z0-9_-]{22})$/.exec(token);
  if (!m || token.length > MAX_CURSOR_LENGTH) throw invalid();
  const payload = Buffer.from(m[1]!, 'base64url').toString('utf8');
  const p = /^(0|[1-9][0-9]{0,18})\.([0-9A-Za-z_]{1,64})$/.exec(payload);
  if (!p || BigInt(p[1]!) > 9_223_372_036_854_775_807n) throw invalid();
  return { endpointId: p[2]!, position: p[1]!, payload, mac: m[2]! };
}

/** Checks the token's MAC under the endpoint's key; throws `SURETY_INVALID_CURSOR` when it fails. */
export function verifyCursor(
  key: Uint8Array,
  tenant: string,
  parsed: { payload: string; mac: string },
): void {
  const expected = mac(key, tenant, parsed.payload);
  const given = Buffer.from(parsed.mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
}
