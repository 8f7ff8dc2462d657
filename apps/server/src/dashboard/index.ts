import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The static files: `apps/server/ui/` (`shared/`: the components the dashboard and the consumer portal
 * both use; `dashboard/`, `portal/`: each page's own). Both this module (src/dashboard/index.ts) and its
 * build (dist/dashboard/index.js) sit two levels below the package root, and tsc copies no non-TS files,
 * so the files are read from the package folder in both cases.
 */
export const UI_ROOT = new URL('../../ui/', import.meta.url);

/** Where the files of `apps/server/ui/` are served: `/ui/shared/api.js` is `ui/shared/api.js`. */
export const UI_PREFIX = '/ui';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Same-origin everything, no inline script or style, no plugins, no framing. The dashboard holds an API
 * key in sessionStorage, so script injection is the threat that matters: the page renders with DOM nodes
 * (never innerHTML) and this policy refuses any script the service did not serve.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The dashboard's policy for Swagger UI at /docs (same origin, so the same threat), except that
 * images may be `data:` URIs: its stylesheet draws its icons as data: SVGs and PNGs.
 */
export const DOCS_CSP = DASHBOARD_CSP.replace("img-src 'self'", "img-src 'self' data:");

export interface DashboardOptions {
  /** URL prefix. @default '/dashboard' */
  prefix?: string;
}

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

/**
 * Every servable file under `apps/server/ui/`, keyed by its path there (`dashboard/index.html`). Only
 * the known types, only names of letters, digits, `.`, `-` and `_` (no dotfiles): nothing else is served.
 */
export function loadAssets(root: URL = UI_ROOT): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (dir: string) => {
    for (const name of readdirSync(new URL(dir, root))) {
      if (!/^[\w-][\w.-]*$/.test(name)) continue;
      const rel = `${dir}${name}`;
      if (statSync(new URL(rel, root)).isDirectory()) {
        walk(`${rel}/`);
        continue;
      }
      const type = TYPES[name.slice(name.lastIndexOf('.'))];
      if (!type || name.endsWith('.d.ts')) continue;
      const body = readFileSync(new URL(rel, root));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
      assets.set(rel, { body, type, etag });
    }
  };
  walk('');
  if (!assets.has('dashboard/index.html')) throw new Error(`ui: no dashboard/index.html in ${root.pathname}`);
  return assets;
}

/**
 * Serves the dashboard: `GET /dashboard` (and `/dashboard/`) is the page (`ui/dashboard/index.html`),
 * `GET /ui/<folder>/<file>` the scripts, styles and images of `apps/server/ui/` (the dashboard's, the
 * portal's and the components they share; the portal's page itself is served by its own route, under
 * its own policy). The files are read once, here; the routes are public (the page asks for the API key
 * and sends it on each /v1 call itself) and hidden from the OpenAPI document.
 *
 * @example
 * const app = await buildApp(options);
 * registerDashboard(app);
 */
export function registerDashboard(app: FastifyInstance, options: DashboardOptions = {}): void {
  const prefix = options.prefix ?? '/dashboard';
  const assets = loadAssets();
  const route = { config: { public: true }, schema: { hide: true } } as const;

  const serve = (asset: Asset) =>
    async function dashboardAsset(request: FastifyRequest, reply: FastifyReply) {
      reply
        .header('content-security-policy', DASHBOARD_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .header('cache-control', 'no-cache')
        .header('etag', asset.etag);
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    };

  const index = assets.get('dashboard/index.html')!;
  app.get(prefix, route, serve(index));
  app.get(`${prefix}/`, route, serve(index));
  for (const [name, asset] of assets) {
    if (!name.endsWith('.html')) app.get(`${UI_PREFIX}/${name}`, route, serve(asset));
  }
}
