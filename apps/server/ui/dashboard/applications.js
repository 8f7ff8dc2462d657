// @ts-check
// `#/applications`: the tenant's applications (its customers, docs/applications.md), each with its
// endpoints, and a button that opens a portal session for it in a new tab: the page the customer
// would see, scoped to that application.
import { api, path } from '../shared/api.js';
import { facts, h, replaceChildren } from '../shared/dom.js';
import { statusBadge } from '../shared/endpoint-badges.js';
import { exact, when } from '../shared/format.js';
import { actionButton, announce, moreButton, section } from '../shared/ui.js';

/** @typedef {import('../shared/types.js').Application} Application */
/** @typedef {import('../shared/types.js').Endpoint} Endpoint */

/**
 * Opens a portal session for `app` in a new tab. The tab is opened without an opener and without a
 * referrer; the link stays below the button for a browser that blocked the tab.
 * @param {Application} app
 * @param {boolean} readOnly
 * @param {HTMLElement} out
 * @param {string} idempotencyKey
 */
async function openPortal(app, readOnly, out, idempotencyKey) {
  /** @type {import('../shared/types.js').PortalSession} */
  const s = await api('POST', path`/v1/applications/${app.id}/portal-sessions`, {
    idempotencyKey,
    body: readOnly ? { readOnly: true } : {},
  });
  window.open(s.url, '_blank', 'noopener,noreferrer');
  replaceChildren(
    out,
    h(
      'p',
      { class: 'hint' },
      `${readOnly ? 'Read-only portal' : 'Portal'} opened in a new tab, until ${exact(s.expiresAt)}. `,
      'Blocked? ',
      h('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer' }, 'Open it here'),
      '.',
    ),
  );
  announce(`Portal session for ${app.name} opened in a new tab.`);
}

/**
 * @param {Application} app
 * @param {Endpoint[]} endpoints
 * @param {boolean} more whether the application has more endpoints than listed
 */
function applicationCard(app, endpoints, more) {
  const out = h('div', { class: 'action-output' });
  return h(
    'li',
    { class: 'card application', dataset: { application: app.id } },
    h('div', { class: 'card-head' }, h('h3', { class: 'card-title' }, app.name)),
    facts(
      [
        ['Application id', h('code', { class: 'id' }, app.id)],
        ['Your id (uid)', app.uid ? h('code', {}, app.uid) : null],
        ['Created', when(app.createdAt)],
        ['Endpoints', more ? `${endpoints.length}+` : String(endpoints.length)],
      ],
      'facts facts-inline',
    ),
    endpoints.length === 0
      ? h('p', { class: 'empty' }, 'No endpoints yet: the customer adds them in the portal.')
      : h(
          'ul',
          { class: 'plain-list' },
          endpoints.map((e) =>
            h(
              'li',
              {},
              h('a', { href: `#/endpoints/${e.id}`, dataset: { key: `ep-${e.id}` } }, e.description || e.url),
              ' ',
              statusBadge(e),
            ),
          ),
        ),
    h(
      'div',
      { class: 'actions' },
      actionButton('Open portal', (key) => openPortal(app, false, out, key), {
        key: `portal-${app.id}`,
        busy: 'Opening…',
      }),
      actionButton('Open read-only portal', (key) => openPortal(app, true, out, key), {
        tone: 'secondary',
        key: `portal-ro-${app.id}`,
        busy: 'Opening…',
      }),
    ),
    out,
  );
}

/** @type {import('../shared/types.js').View<{}>} */
export async function applicationsView(_params, ctx) {
  const list = h('ul', { class: 'cards cards-wide' });
  const moreSlot = h('div');
  /** @type {string | null} */
  let cursor = null;
  let count = 0;

  /** @param {boolean} reset */
  async function load(reset) {
    const q = new URLSearchParams({ limit: '20' });
    if (!reset && cursor) q.set('cursor', cursor);
    /** @type {import('../shared/types.js').Page<Application>} */
    const page = await api('GET', `/v1/applications?${q}`);
    const withEndpoints = await Promise.all(
      page.data.map(async (app) => {
        /** @type {import('../shared/types.js').Page<Endpoint>} */
        const eps = await api(
          'GET',
          `/v1/webhook-endpoints?${new URLSearchParams({ applicationId: app.id, limit: '20' })}`,
        );
        return { app, endpoints: eps.data, more: eps.hasMore };
      }),
    );
    if (!ctx.alive()) return;
    cursor = page.nextCursor;
    count = reset ? withEndpoints.length : count + withEndpoints.length;
    const cards = withEndpoints.map(({ app, endpoints, more }) => applicationCard(app, endpoints, more));
    if (reset) replaceChildren(list, cards);
    else list.append(...cards);
    if (count === 0) {
      list.append(
        h(
          'li',
          { class: 'empty' },
          'No applications yet. Create one per customer with POST /v1/applications; its endpoints are ' +
            'the ones that customer manages in the portal.',
        ),
      );
    }
    replaceChildren(
      moreSlot,
      page.hasMore ? moreButton('Show more applications', () => load(false).catch(ctx.fail)) : null,
    );
  }

  await load(true);
  return {
    title: 'Applications',
    node: h(
      'div',
      { class: 'stack' },
      h(
        'p',
        { class: 'lede' },
        'Your customers, each with the endpoints they receive your events on. ',
        '"Open portal" shows you the page a customer sees, in a new tab (a session of one hour).',
      ),
      section('Your customers', list, moreSlot),
    ),
  };
}
