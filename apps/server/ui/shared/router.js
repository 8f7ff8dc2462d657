// @ts-check
// Hash routes (#/endpoints/we_…) keep every view linkable without the server knowing them. The
// router owns what changes between navigations: which view is shown (a generation number, so a
// late answer for a view left behind draws nothing), that view's poller, and the message the next
// view says once shown.
import { session, statusOf } from './api.js';
import { h } from './dom.js';
import { createPoller } from './poller.js';
import { markSection, showSession, showView } from './shell.js';
import { announce, announceError } from './ui.js';

/** How often a view with work in flight (pending deliveries) re-reads it. */
const POLL_MS = 2000;
/** Polling stops this long after the last action, even if something stays pending (a retry hours away). */
const POLL_FOR_MS = 120_000;

/**
 * A route: the pattern of the hash, its view, the view's params from the match, and the nav
 * section it belongs to.
 * @typedef {[RegExp, import('./types.js').View<any>, (m: RegExpExecArray) => object, string]} Route
 */

/**
 * @param {object} options
 * @param {import('./shell.js').Shell} options.shell
 * @param {Route[]} options.routes
 * @param {() => void} options.signIn shows the sign-in form (no key in this tab)
 * @param {() => boolean} [options.canWrite] whether views show write actions (default: always)
 * @param {string} [options.homeLabel] the not-found page's way back
 * @param {(key: string) => string} [options.sessionLabel] what the header says of the credential
 */
export function createRouter({
  shell,
  routes,
  signIn,
  canWrite = () => true,
  homeLabel = 'Go to the endpoints.',
  sessionLabel,
}) {
  let generation = 0;
  /** @type {ReturnType<typeof createPoller> | undefined} */
  let poller;
  /** @type {string | undefined} */
  let nextMessage;

  /** Leaves the view shown: its late answers draw nothing and its polling stops. */
  function leave() {
    generation++;
    poller?.stop();
    poller = undefined;
  }

  /**
   * A view's handle on the router, for one navigation.
   * @param {number} gen
   * @returns {import('./types.js').ViewContext}
   */
  function makeContext(gen) {
    const alive = () => gen === generation;
    const fail = (/** @type {unknown} */ error) => announceError(error);
    const own = createPoller({ intervalMs: POLL_MS, forMs: POLL_FOR_MS, alive, fail });
    poller = own;
    return {
      canWrite: canWrite(),
      alive,
      fail,
      poll: own.poll,
      startPolling: own.start,
      navigate(hash, message) {
        nextMessage = message;
        location.hash = hash;
      },
    };
  }

  async function render() {
    leave();
    const gen = generation;
    const key = session.key;
    if (!key) return signIn();
    const route = (location.hash.replace(/^#/, '') || '/').split('?')[0] ?? '/';
    showSession(shell, key, sessionLabel);
    const found = routes
      .map(([re, view, params, section]) => ({ m: re.exec(route), view, params, section }))
      .find(({ m }) => m);
    if (!found?.m) {
      showView(shell, {
        title: 'Not found',
        node: h('p', {}, 'No such page. ', h('a', { href: '#/' }, homeLabel)),
      });
      return;
    }
    markSection(shell, found.section);
    const { main } = shell;
    main.setAttribute('aria-busy', 'true');
    try {
      const result = await found.view(found.params(found.m), makeContext(gen));
      if (gen !== generation) return;
      showView(shell, result);
    } catch (error) {
      if (gen !== generation) return;
      if (statusOf(error) === 401) return;
      showView(shell, {
        title: statusOf(error) === 404 ? 'Not found' : 'Something went wrong',
        node: h(
          'p',
          { class: 'callout callout-bad' },
          error instanceof Error ? error.message : String(error),
        ),
      });
    } finally {
      if (gen === generation) main.removeAttribute('aria-busy');
    }
  }

  /** A new hash: messages of the view left are cleared (or replaced by the one it left for the next). */
  function hashChanged() {
    announce(nextMessage ?? '');
    nextMessage = undefined;
    render();
  }

  return { render, leave, hashChanged };
}
