// @ts-check
// The page around the views (index.html): the header's nav and session box, and <main>, where a
// view is shown under its heading and breadcrumbs.
import { h } from './dom.js';

/**
 * @typedef {object} Shell
 * @property {HTMLElement} main
 * @property {HTMLElement} nav
 * @property {HTMLElement} session the key's last characters and "Sign out"
 * @property {HTMLElement} sessionKey
 * @property {HTMLElement} signOut
 * @property {HTMLElement} skipLink
 */

/** @param {string} id */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`dashboard: index.html has no #${id}`);
  return el;
}

/** @returns {Shell} the elements of index.html the app drives */
export const findShell = () => ({
  main: byId('main'),
  nav: byId('nav'),
  session: byId('session'),
  sessionKey: byId('session-key'),
  signOut: byId('sign-out'),
  skipLink: byId('skip-link'),
});

/**
 * Shows or hides the signed-in parts of the header.
 * @param {Shell} shell
 * @param {string | null} key the key signed in with; null when signed out
 * @param {(key: string) => string} [label] what the header says of it @default "Key …" and its last 4
 */
export function showSession(shell, key, label = (k) => `Key …${k.slice(-4)}`) {
  shell.nav.hidden = !key;
  shell.session.hidden = !key;
  if (key) shell.sessionKey.textContent = label(key);
}

/**
 * Marks the nav link of the section shown.
 * @param {Shell} shell
 * @param {string} section
 */
export function markSection(shell, section) {
  for (const link of shell.nav.querySelectorAll('a')) {
    if (link.dataset.nav === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

/**
 * Puts a view in <main> under its heading and moves focus to the heading, as a page load would.
 * @param {Shell} shell
 * @param {import('./types.js').ViewResult} view
 */
export function showView(shell, { title, node, crumbs = [] }) {
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
  shell.main.replaceChildren(...[trail, heading, node].filter((n) => n !== null));
  document.title = `${title} · ${document.body.dataset.product ?? 'Surety'}`;
  heading.focus({ preventScroll: true });
  window.scrollTo(0, 0);
}
