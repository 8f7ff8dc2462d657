// The Surety dashboard: a native ES module, no framework, no build step. Hash routes
// (#/endpoints/we_…) keep every view linkable without the server knowing them; the API key lives in
// sessionStorage and travels only in the Authorization header, never in a URL.
import { api, session, whenUnauthorized } from './api.js';
import { h } from './dom.js';
import { endpointView, overview } from './endpoints.js';
import { eventsView, eventView } from './events.js';
import { announce, announceError, clearMessages, field } from './ui.js';

/** How often a view with work in flight (pending deliveries) re-reads it. */
const POLL_MS = 2000;
/** Polling stops this long after the last action, even if something stays pending (a retry hours away). */
const POLL_FOR_MS = 120_000;

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const sessionBox = document.getElementById('session');

const ID = '[0-9A-Za-z_]{1,64}';
const EVENT_ID = '[\\x21-\\x7e]{1,255}';
const routes = [
  [/^\/?$/, overview, () => ({}), 'endpoints'],
  [/^\/endpoints$/, overview, () => ({}), 'endpoints'],
  [new RegExp(`^/endpoints/(${ID})$`), endpointView, (m) => ({ id: m[1] }), 'endpoints'],
  [/^\/events$/, eventsView, () => ({}), 'events'],
  [
    new RegExp(`^/events/(${EVENT_ID}?)(?:/deliveries/(${ID}))?$`),
    eventView,
    (m) => ({ id: decodeURIComponent(m[1]), deliveryId: m[2] }),
    'events',
  ],
];

let generation = 0;
let pollTimer;

function stopPolling() {
  clearTimeout(pollTimer);
  pollTimer = undefined;
}

/** A view's handle on the router: whether it is still shown, and its polling. */
function makeContext(gen) {
  let refresh;
  let until = 0;
  const ctx = {
    alive: () => gen === generation,
    fail: (error) => announceError(error),
    /** Registers `fn` (resolves to "still pending?"); polls at once if `active`. */
    poll(fn, active) {
      refresh = fn;
      if (active) ctx.startPolling();
    },
    startPolling() {
      until = Date.now() + POLL_FOR_MS;
      if (!pollTimer) schedule();
    },
  };
  function schedule() {
    pollTimer = setTimeout(async () => {
      pollTimer = undefined;
      if (!ctx.alive() || !refresh) return;
      let pending = true;
      if (document.visibilityState === 'visible') {
        try {
          pending = await refresh();
        } catch (error) {
          if (ctx.alive()) announceError(error);
          return;
        }
      }
      if (ctx.alive() && pending && Date.now() < until) schedule();
    }, POLL_MS);
  }
  return ctx;
}

async function render() {
  const gen = ++generation;
  stopPolling();
  if (!session.key) return showSignIn();
  const route = (location.hash.replace(/^#/, '') || '/').split('?')[0];
  const match = routes
    .map(([re, view, params, section]) => [re.exec(route), view, params, section])
    .find(([m]) => m);
  nav.hidden = false;
  sessionBox.hidden = false;
  document.getElementById('session-key').textContent = `Key …${session.key.slice(-4)}`;
  if (!match) {
    showView({
      title: 'Not found',
      node: h('p', {}, 'No such page. ', h('a', { href: '#/' }, 'Go to the endpoints.')),
    });
    return;
  }
  const [m, view, params, section] = match;
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.nav === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  main.setAttribute('aria-busy', 'true');
  try {
    const result = await view(params(m), makeContext(gen));
    if (gen !== generation) return;
    showView(result);
  } catch (error) {
    if (gen !== generation) return;
    if (error?.status === 401) return;
    showView({
      title: error?.status === 404 ? 'Not found' : 'Something went wrong',
      node: h('p', { class: 'callout callout-bad' }, error instanceof Error ? error.message : String(error)),
    });
  } finally {
    if (gen === generation) main.removeAttribute('aria-busy');
  }
}

/** Puts a view in <main> under its heading and moves focus to the heading, as a page load would. */
function showView({ title, node, crumbs = [] }) {
  const heading = h('h1', { tabindex: '-1', id: 'page-title' }, title);
  const trail = crumbs.length
    ? h(
        'nav',
        { class: 'crumbs', 'aria-label': 'Breadcrumb' },
        h(
          'ol',
          {},
          crumbs.map(([label, href]) => h('li', {}, h('a', { href }, label))),
        ),
      )
    : null;
  // replaceChildren would print a null as the text "null".
  main.replaceChildren(...[trail, heading, node].filter(Boolean));
  document.title = `${title} · Surety`;
  heading.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}

function showSignIn(reason) {
  nav.hidden = true;
  sessionBox.hidden = true;
  const key = h('input', {
    type: 'password',
    name: 'apiKey',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  });
  const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'form signin' },
    field(
      'API key',
      key,
      'A key from SURETY_API_KEYS. It stays in this tab only and is forgotten when you sign out or close it.',
    ),
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const value = key.value.trim();
    if (!value) {
      announceError(new Error('Enter your API key.'));
      key.focus();
      return;
    }
    submit.setAttribute('aria-disabled', 'true');
    try {
      // Checks the key before keeping it: a wrong key is an error here, not a broken dashboard.
      await api('GET', '/v1/webhook-endpoints?limit=1', { key: value });
      session.signIn(value);
      clearMessages();
      announce('Signed in.');
      if (!location.hash || location.hash === '#') location.hash = '#/';
      render();
    } catch (error) {
      announceError(error);
      key.select();
      key.focus();
    } finally {
      submit.removeAttribute('aria-disabled');
    }
  });
  main.replaceChildren(
    h(
      'div',
      { class: 'signin-wrap' },
      h('h1', { tabindex: '-1', id: 'page-title' }, 'Sign in to Surety'),
      h('p', { class: 'lede' }, 'Webhook endpoints, their health, events and every delivery attempt.'),
      form,
    ),
  );
  document.title = 'Sign in · Surety';
  if (reason) announceError(reason);
  key.focus();
}

whenUnauthorized(() => {
  const wasSignedIn = Boolean(session.key);
  session.signOut();
  if (wasSignedIn) {
    generation++;
    stopPolling();
    showSignIn(new Error('The service refused your API key. Sign in again.'));
  }
});

document.getElementById('sign-out').addEventListener('click', () => {
  session.signOut();
  generation++;
  stopPolling();
  showSignIn();
  announce('Signed out. The key was removed from this tab.');
});

// The skip link targets <main> without touching the hash, which is the router's.
document.getElementById('skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  (main.querySelector('h1') ?? main).focus();
});

window.addEventListener('hashchange', () => {
  clearMessages();
  render();
});
render();
