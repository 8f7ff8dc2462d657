// @ts-check
// The consumer portal: the page a tenant's customer opens from a session link
// (`/portal/<session id>#token=ps_…`) to manage the endpoints of their application. The token is
// read from the fragment and at once removed from the URL (history.replaceState: it stays in no
// history entry, bookmark or screenshot of the address bar), kept in memory (and this tab's
// sessionStorage, so a reload keeps working), and sent only as `Authorization: Bearer`. The views
// are the dashboard's own components (../shared/); the service scopes every call to the
// application, and a read-only session's views show no write action.
import { api, path, session, statusOf, UNAUTHORIZED } from '../shared/api.js';
import { endpointView } from '../shared/endpoint-page.js';
import { eventView } from '../shared/event-page.js';
import { eventsView } from '../shared/events-list.js';
import { createRouter } from '../shared/router.js';
import { findShell } from '../shared/shell.js';
import { announce } from '../shared/ui.js';
import { catalogueView } from './catalogue.js';
import { showExpired } from './expired.js';
import { portalHome } from './home.js';

session.configure({ storageKey: 'surety.portalToken' });

/** The session id a token names (`ps_<id>.<secret>`), or undefined. */
const sessionIdOf = (/** @type {string | null} */ token) => /^(ps_[0-9A-Za-z]+)\./.exec(token ?? '')?.[1];

// 1. The link's token: out of the URL before anything else runs.
const fragment = /^#token=([^&]*)/.exec(location.hash);
if (fragment) {
  history.replaceState(null, '', `${location.pathname}${location.search}#/`);
  let token = '';
  try {
    token = decodeURIComponent(fragment[1] ?? '');
  } catch {
    // not percent-encoded UTF-8: no token
  }
  if (token) session.signIn(token);
  else session.signOut();
}
// A token kept from another link (this tab opened an earlier session) is not this page's.
const pathSession = /^\/portal\/(ps_[0-9A-Za-z]+)$/.exec(location.pathname)?.[1];
if (pathSession && sessionIdOf(session.key) !== pathSession) session.signOut();

/**
 * What this session may do, as the service says (GET /v1/portal-session, the token's own session).
 * Until it has answered, nothing is shown; should it fail otherwise than 401, the views show the
 * write actions, which the service refuses to a read-only session with its own message.
 * @type {{ readOnly: boolean, label: string }}
 */
const about = { readOnly: false, label: 'Webhooks' };

async function readSession() {
  if (!session.key) return;
  try {
    /** @type {{ readOnly?: boolean, applicationName?: string | null }} */
    const s = await api('GET', '/v1/portal-session');
    about.readOnly = s.readOnly === true;
    about.label = s.applicationName || 'Webhooks';
  } catch (error) {
    if (statusOf(error) === 401) throw error;
  }
}

const ID = '[0-9A-Za-z_]{1,64}';
const EVENT_ID = '[\\x21-\\x7e]{1,255}';
/** @type {import('../shared/router.js').Route[]} */
const routes = [
  [/^\/?$/, portalHome, () => ({}), 'endpoints'],
  [/^\/endpoints$/, portalHome, () => ({}), 'endpoints'],
  [new RegExp(`^/endpoints/(${ID})$`), endpointView, (m) => ({ id: m[1] }), 'endpoints'],
  [/^\/event-types$/, catalogueView, () => ({}), 'event-types'],
  [/^\/events$/, eventsView, () => ({}), 'events'],
  [
    new RegExp(`^/events/(${EVENT_ID}?)(?:/deliveries/(${ID}))?$`),
    eventView,
    (m) => ({ id: decodeURIComponent(m[1] ?? ''), deliveryId: m[2] }),
    'events',
  ],
];

const shell = findShell();
let ended = false;
const router = createRouter({
  shell,
  routes,
  signIn: () => showExpired(shell, ended ? 'ended' : 'missing'),
  canWrite: () => !about.readOnly,
  sessionLabel: () => (about.readOnly ? `${about.label} · read only` : about.label),
});

// Any 401 (expired, revoked, not valid): the session is over; say so, in place of the view.
window.addEventListener(UNAUTHORIZED, (event) => {
  session.signOut();
  router.leave();
  const detail = /** @type {CustomEvent} */ (event).detail;
  showExpired(shell, 'expired', detail instanceof Error ? detail.message : undefined);
});

// "End session": the service revokes it (the token stops working everywhere, at once), and this tab
// forgets it. Ended here even when the service cannot be reached.
shell.signOut.addEventListener('click', async () => {
  const id = sessionIdOf(session.key);
  ended = true;
  router.leave();
  let revoked = false;
  try {
    if (id) await api('DELETE', path`/v1/portal-sessions/${id}`);
    revoked = true;
  } catch {
    // already over (401), or unreachable: forgotten here all the same
  }
  session.signOut();
  showExpired(shell, 'ended');
  announce(
    revoked
      ? 'Session ended: its link no longer works, and the token was removed from this tab.'
      : 'The token was removed from this tab.',
  );
});

shell.skipLink.addEventListener('click', (event) => {
  event.preventDefault();
  (shell.main.querySelector('h1') ?? shell.main).focus();
});

window.addEventListener('hashchange', () => router.hashChanged());
readSession().then(
  () => router.render(),
  () => {}, // a 401: the expired page is already shown
);
