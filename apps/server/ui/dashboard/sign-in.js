// @ts-check
// The sign-in form: the API key is checked against the service before it is kept.
import { api, session } from '../shared/api.js';
import { h } from '../shared/dom.js';
import { showSession } from '../shared/shell.js';
import { announce, announceError, clearMessages, field } from '../shared/ui.js';

/**
 * Shows the sign-in form in place of any view.
 * @param {object} options
 * @param {import('../shared/shell.js').Shell} options.shell
 * @param {() => void} options.signedIn called once the key is kept (the router shows the view)
 * @param {Error} [options.reason] why the user is asked to sign in (again)
 */
export function showSignIn({ shell, signedIn, reason }) {
  showSession(shell, null);
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
      signedIn();
    } catch (error) {
      announceError(error);
      key.select();
      key.focus();
    } finally {
      submit.removeAttribute('aria-disabled');
    }
  });
  shell.main.replaceChildren(
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
