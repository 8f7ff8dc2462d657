import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PortalData } from '../data/portal.js';
import { frameAncestorsValue } from './origins.js';
import { SESSION_ID } from './token.js';

/**
 * The portal's page: `apps/server/ui/portal/index.html` (its scripts and styles are the ui folder's
 * static files, served with the dashboard's). Read once, from the package folder: this module and
 * its build both sit two levels below the package root.
 */
const PAGE = new URL('../../ui/portal/index.html', import.meta.url);

/**
 * The portal's policy. Nothing but the service's own scripts, styles and API calls; `data:` images
 * only; no plugins, no `<base>`, no form posts anywhere; framed only by the tenant's origins
 * (`frame-ancestors`, the last directive, filled per session). The page holds a portal token in
 * memory, so script injection is what it must exclude: it renders with DOM nodes, never innerHTML.
 */
export const PORTAL_CSP_BASE = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
];

/** The portal's Content-Security-Policy for a list of allowed framing origins. */
export const portalCsp = (frameAncestors: readonly string[]): string =>
  [...PORTAL_CSP_BASE, `frame-ancestors ${frameAncestorsValue(frameAncestors)}`].join('; ');

export interface PortalPageOptions {
  data: PortalData;
}

/**
 * Serves the portal page at `GET /portal/<session id>` (and `GET /portal`, which no origin may
 * frame). A session link is `<base>/portal/<session id>#token=<token>`: the browser never sends the
 * fragment, so the token is in no request line, log or Referer, while the path names the session,
 * whose tenant's `frame-ancestors` the page is served with. An id that names no session gets the
 * same page (it shows the API's 401) under `frame-ancestors 'none'`; an expired or revoked one keeps
 * its tenant's origins, so the "session expired" page shows inside the tenant's frame.
 *
 * @example
 * registerPortalPage(app, { data: portalData(schema) });
 */
export function registerPortalPage(app: FastifyInstance, options: PortalPageOptions): void {
  const body = readFileSync(PAGE);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  const id = new RegExp(SESSION_ID);
  const route = { config: { public: true }, schema: { hide: true } } as const;

  const send = (reply: FastifyReply, frameAncestors: readonly string[]) => {
    reply
      .header('content-security-policy', portalCsp(frameAncestors))
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-opener-policy', 'same-origin')
      // The policy differs per session and the page is tiny: never cached, so a revoked origin
      // stops framing it at once.
      .header('cache-control', 'no-store')
      .header('etag', etag);
    // X-Frame-Options cannot name several origins; browsers that know frame-ancestors ignore it.
    if (frameAncestors.length === 0) reply.header('x-frame-options', 'DENY');
    return reply.type('text/html; charset=utf-8').send(body);
  };

  app.get('/portal', route, async (_request, reply) => send(reply, []));
  app.get<{ Params: { session: string } }>(
    '/portal/:session',
    route,
    async (request: FastifyRequest<{ Params: { session: string } }>, reply) => {
      const session = request.params.session;
      if (!id.test(session)) return send(reply, []);
      const row = await options.data.sessionById(app.sql, session);
      const settings = row ? await options.data.settings(app.sql, { tenant: row.tenant }) : undefined;
      return send(reply, settings?.frame_ancestors ?? []);
    },
  );
}
