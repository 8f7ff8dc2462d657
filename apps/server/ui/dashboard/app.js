// @ts-check
// The Surety dashboard: native ES modules, no framework, no build step. This module only wires the
// page together: the routes, the router, sign-in and sign-out. The API key lives in sessionStorage
// and travels only in the Authorization header, never in a URL.
import { session, UNAUTHORIZED } from '../shared/api.js';
import { endpointView } from '../shared/endpoint-page.js';
import { eventView } from '../shared/event-page.js';
import { eventsView } from '../shared/events-list.js';
import { createRouter } from '../shared/router.js';
import { findShell } from '../shared/shell.js';
import { announce } from '../shared/ui.js';
import { applicationsView } from './applications.js';
import { overview } from './overview.js';
import { paymentsView, paymentView } from './payments.js';
import { showSignIn } from './sign-in.js';

const ID = '[0-9A-Za-z_]{1,64}';
const EVENT_ID = '[\\x21-\\x7e]{1,255}';
/** @type {import('../shared/router.js').Route[]} */
const routes = [
  [/^\/?$/, overview, () => ({}), 'endpoints'],
  [/^\/endpoints$/, overview, () => ({}), 'endpoints'],
  [new RegExp(`^/endpoints/(${ID})$`), endpointView, (m) => ({ id: m[1] }), 'endpoints'],
  [/^\/applications$/, applicationsView, () => ({}), 'applications'],
  [/^\/payments$/, paymentsView, () => ({}), 'payments'],
  [new RegExp(`^/payments/(${ID})$`), paymentView, (m) => ({ id: m[1] ?? '' }), 'payments'],
  [/^\/events$/, eventsView, () => ({}), 'events'],
  [
    new RegExp(`^/events/(${EVENT_ID}?)(?:/deliveries/(${ID}))?$`),
    eventView,
    (m) => ({ id: decodeURIComponent(m[1] ?? ''), deliveryId: m[2] }),
    'events',
  ],
];

const shell = findShell();
const router = createRouter({ shell, routes, signIn: () => signIn() });

/** @param {Error} [reason] */
function signIn(reason) {
  showSignIn({ shell, signedIn: () => router.render(), ...(reason ? { reason } : {}) });
}

window.addEventListener(UNAUTHORIZED, () => {
  const wasSignedIn = Boolean(session.key);
  session.signOut();
  if (wasSignedIn) {
    router.leave();
    signIn(new Error('The service refused your API key. Sign in again.'));
  }
});

shell.signOut.addEventListener('click', () => {
  session.signOut();
  router.leave();
  signIn();
  announce('Signed out. The key was removed from this tab.');
});

// The skip link targets <main> without touching the hash, which is the router's.
shell.skipLink.addEventListener('click', (event) => {
  event.preventDefault();
  (shell.main.querySelector('h1') ?? shell.main).focus();
});

window.addEventListener('hashchange', () => router.hashChanged());
router.render();
