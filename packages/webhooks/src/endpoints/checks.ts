// The checks of an endpoint's fields before a write: its URL (the SSRF rules), headers, filter,
// destination and receiver authentication, and the stored form of each.
import { checkAuth } from '../auth/config.js';
import { InvalidAuthError } from '../auth/errors.js';
import type { WebhooksContext } from '../context.js';
import { WebhookError } from '../errors.js';
import { compileFilter, parseFilter } from '../filter/index.js';
import { checkHeaders } from '../headers.js';
import { validateWebhookUrl } from '../ssrf/index.js';
import type { EndpointFilter, EndpointPatch } from '../types.js';

/** Webhooks.checkUrl: a URL checked as endpoint creation does; throws WebhookError `SURETY_INVALID_URL`. */
export function checkUrl(ctx: WebhooksContext, url: string): string {
  const checked = validateWebhookUrl(url, { allowHttp: ctx.allowHttp, allowList: ctx.allowList });
  if (!checked.ok) throw new WebhookError('SURETY_INVALID_URL', checked.message);
  return checked.url.href;
}

/**
 * The fields checked before anything else (a NUL in a header value is a header problem, not an
 * unstorable string): headers (InvalidHeadersError), filter (InvalidFilterError).
 */
export function checkEndpointFields(fields: Pick<EndpointPatch, 'headers' | 'filter'>): void {
  if (fields.headers !== undefined) checkHeaders(fields.headers);
  if (fields.filter != null) parseFilter(fields.filter);
}

/** The filter as stored: as written, and as the jsonpath predicate publishing evaluates. */
export const filterColumns = (filter: EndpointFilter | null) =>
  filter === null
    ? { filterJson: null, filterPath: null }
    : { filterJson: JSON.stringify(filter), filterPath: compileFilter(parseFilter(filter)) };

export const hasUserInfo = (url: string) => {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false;
  }
};

/** The engine's rules for a destination: its plain-text switch, allow-list and webhook URL check. */
export const destinationChecks = (ctx: WebhooksContext) => ({
  allowHttp: ctx.allowHttp,
  allowList: ctx.allowList,
  checkWebhookUrl: (url: string) => checkUrl(ctx, url),
});

/**
 * The stored form of an endpoint's `auth` as JSON (auth/config.ts: checked, secrets kept), or null
 * for none. Only a webhook endpoint takes one: a broker's credentials are its own (destinations/).
 */
export function authColumn(ctx: WebhooksContext, auth: unknown, kind: string): string | null {
  const stored = checkAuth(auth, { checkUrl: (url) => checkUrl(ctx, url), nowMs: ctx.now() });
  if (stored !== null && kind !== 'webhook') {
    const message = `a ${kind} endpoint takes no receiver authentication (its broker credentials are \`credentials\`)`;
    throw new InvalidAuthError(`/auth: ${message}`, [{ path: '/auth', message }]);
  }
  return stored === null ? null : JSON.stringify(stored);
}
