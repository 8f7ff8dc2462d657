// @ts-check
// What the portal shows when it has no session to work with: the link's session expired or was
// revoked (the API answered 401), or the page was opened without a link's token.
import { h } from '../shared/dom.js';
import { showSession } from '../shared/shell.js';

/**
 * @typedef {'expired' | 'missing' | 'ended'} Why
 */

const TEXT = {
  expired: {
    title: 'Your session has expired',
    lede: 'This link to manage your webhooks is no longer valid: links last a short time, and can be ended early.',
  },
  ended: {
    title: 'Session ended',
    lede: 'You ended this session: its link no longer works.',
  },
  missing: {
    title: 'No session',
    lede: 'This page opens from a link to manage your webhooks, and this one carries no session.',
  },
};

/**
 * Replaces whatever is shown with the "session expired" (or "no session") page.
 * @param {import('../shared/shell.js').Shell} shell
 * @param {Why} why
 * @param {string} [detail] the service's own words, when it gave them
 */
export function showExpired(shell, why, detail) {
  showSession(shell, null);
  const text = TEXT[why];
  const heading = h('h1', { tabindex: '-1', id: 'page-title' }, text.title);
  shell.main.replaceChildren(
    h(
      'div',
      { class: 'signin-wrap expired', dataset: { why } },
      heading,
      h('p', { class: 'lede' }, text.lede),
      detail ? h('p', { class: 'callout callout-warn' }, detail) : null,
      h(
        'p',
        {},
        'To carry on, go back to the site you came from and open the webhooks page again: it makes a new link.',
      ),
    ),
  );
  document.title = `${text.title} · Webhooks`;
  heading.focus({ preventScroll: true });
}
