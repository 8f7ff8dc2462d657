import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashKey } from './config.js';
import type { PortalData } from './data/portal.js';
import { looksLikePortalToken, parseToken, secretMatches } from './portal/token.js';
import { HttpProblem, sendProblem } from './problem.js';

/** What a portal token grants: one application of the request's tenant (docs/portal.md). */
export interface PortalScope {
  sessionId: string;
  applicationId: string;
  readOnly: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant of the API key (or of the portal session) that authenticated the request. */
    tenant: string;
    /**
     * Set when a portal token authenticated the request: every read and write of the route is
     * scoped to `applicationId` (another application's resource answers 404). Undefined for API keys.
     */
    portal: PortalScope | undefined;
  }
  interface FastifyContextConfig {
    /** Routes that answer without an API key (health checks, documents). */
    public?: boolean;
    /**
     * Whether a portal token may call the route: `read` (any session) or `write` (sessions that are
     * not read-only). Absent: portal tokens are refused with 403 `portal_forbidden`.
     */
    portal?: 'read' | 'write';
  }
}

const unauthorized = (detail: string, code = 'unauthorized', title = 'Unauthorized') =>
  new HttpProblem(401, code, title, detail, {}, { 'www-authenticate': 'Bearer realm="surety"' });

/** The bearer credential of the request, or undefined. */
function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/** The tenant for a bearer key, or undefined. Keys are compared by their SHA-256, never stored raw. */
export function tenantForKey(apiKeys: Map<string, string>, request: FastifyRequest): string | undefined {
  const bearer = bearerOf(request);
  return bearer === undefined ? undefined : apiKeys.get(hashKey(bearer));
}

export interface PortalAuthOptions {
  data: PortalData;
  /** The clock sessions expire by. */
  now: () => number;
}

/**
 * What a portal token is worth: its session when it is current, else why not. A token whose id
 * names no session, or whose secret does not match, is `invalid` (the same answer either way, so
 * the answer does not say whether a session id exists).
 */
async function portalSession(app: FastifyInstance, options: PortalAuthOptions, token: string) {
  const parsed = parseToken(token);
  if (!parsed) return { kind: 'invalid' } as const;
  const row = await options.data.sessionById(app.sql, parsed.id);
  if (!row || !secretMatches(parsed.secret, row.token_hash)) return { kind: 'invalid' } as const;
  if (row.revoked_at !== null) return { kind: 'revoked' } as const;
  if (new Date(row.expires_at).getTime() <= options.now()) return { kind: 'expired' } as const;
  return { kind: 'current', row } as const;
}

/**
 * Every route needs `Authorization: Bearer <key>` unless its config says `public: true`. A portal
 * token (`ps_…`) is accepted only by routes whose config says `portal`: elsewhere 403
 * `portal_forbidden`; on a `write` route a read-only session gets 403 `portal_read_only`; an
 * expired or revoked session 401 `portal_session_expired` / `portal_session_revoked`.
 */
export function registerAuth(
  app: FastifyInstance,
  apiKeys: Map<string, string>,
  portal: PortalAuthOptions,
): void {
  app.decorateRequest('tenant', '');
  app.decorateRequest('portal', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config?.public) return;
    if (request.routeOptions.url === undefined) return; // 404s answer as 404, not 401
    const bearer = bearerOf(request);
    if (bearer !== undefined && looksLikePortalToken(bearer)) {
      const session = await portalSession(app, portal, bearer);
      if (session.kind === 'invalid') {
        return sendProblem(reply, unauthorized('The portal token is not valid.'), request.url);
      }
      if (!config.portal) {
        const problem = new HttpProblem(
          403,
          'portal_forbidden',
          'Forbidden',
          'A portal token cannot call this route; use an API key.',
        );
        return sendProblem(reply, problem, request.url);
      }
      if (session.kind === 'revoked') {
        const detail = 'This portal session was revoked; ask for a new link.';
        return sendProblem(
          reply,
          unauthorized(detail, 'portal_session_revoked', 'Session revoked'),
          request.url,
        );
      }
      if (session.kind === 'expired') {
        const detail = 'This portal session has expired; ask for a new link.';
        return sendProblem(
          reply,
          unauthorized(detail, 'portal_session_expired', 'Session expired'),
          request.url,
        );
      }
      if (config.portal === 'write' && session.row.read_only) {
        const problem = new HttpProblem(
          403,
          'portal_read_only',
          'Read-only session',
          'This portal session is read-only: it cannot change anything.',
        );
        return sendProblem(reply, problem, request.url);
      }
      request.tenant = session.row.tenant;
      request.portal = {
        sessionId: session.row.id,
        applicationId: session.row.application_id,
        readOnly: session.row.read_only,
      };
      return;
    }
    const tenant = bearer === undefined ? undefined : apiKeys.get(hashKey(bearer));
    if (tenant === undefined) {
      const detail = request.headers.authorization
        ? 'The API key is not valid.'
        : 'Send your API key as "Authorization: Bearer <key>".';
      return sendProblem(reply, unauthorized(detail), request.url);
    }
    request.tenant = tenant;
  });
}
