// @ts-check
// A broker endpoint's credentials (docs/destinations.md "Credentials"): write-only. The API shows the
// username and never the password, so the page says "password set"; the fields below send a new
// pair (or none), and the password typed is cleared from the page once sent.
import { apiWithETag, path, statusOf } from './api.js';
import { h, nextId } from './dom.js';
import { credentialsText } from './endpoint-badges.js';
import { checkedField, show } from './endpoint-destination.js';
import { actionButton, announce } from './ui.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */

/** Username and password inputs, the password's refusal said next to it. */
function pair() {
  const username = checkedField(
    'Username',
    /** @type {HTMLInputElement} */ (
      h('input', {
        type: 'text',
        name: 'username',
        maxlength: '1024',
        autocomplete: 'off',
        spellcheck: 'false',
      })
    ),
  );
  const password = checkedField(
    'Password',
    /** @type {HTMLInputElement} */ (
      h('input', { type: 'password', name: 'password', maxlength: '4096', autocomplete: 'new-password' })
    ),
    'Write-only: sent once, never shown back.',
  );
  return { username, password };
}

/**
 * The add form's credentials: optional; a username without a password is a user with an empty one.
 * `value()` is the API's `credentials`, or null for none.
 */
export function credentialFields() {
  const { username, password } = pair();
  const legend = nextId('credentials');
  const node = h(
    'fieldset',
    { class: 'field choices field-group', 'aria-labelledby': legend },
    h('legend', { id: legend }, 'Broker credentials (optional)'),
    username.node,
    password.node,
  );
  return {
    node,
    value() {
      const user = username.input.value.trim();
      if (!user && password.input.value) {
        username.say('Give the username that goes with this password.');
        throw new Error('The broker credentials need a username.');
      }
      return user ? { username: user, password: password.input.value } : null;
    },
    clearErrors() {
      username.say('');
    },
    /**
     * @param {unknown} error
     * @returns {HTMLInputElement | undefined}
     */
    showErrors(error) {
      const refused = /** @type {{ errors?: Array<{ path?: string, message?: string }> }} */ (
        error
      ).errors?.find((e) => e.path?.startsWith('/credentials'));
      if (!refused) return undefined;
      username.say(`Refused: ${refused.message ?? 'not valid'}`);
      return username.input;
    },
  };
}

/**
 * The endpoint page's credentials section: what is set (the password only as "set"), and a form that
 * replaces or removes them, saved on its own with If-Match on the version shown.
 * @param {{ page: import('./types.js').EndpointPage, saved: () => Promise<unknown> }} options
 */
export function credentialsForm({ page, saved }) {
  const now = h('p', { class: 'hint', dataset: { credentials: '' } });
  const { username, password } = pair();
  const remove = actionButton(
    'Remove credentials',
    async (idempotencyKey) => {
      await send(null, idempotencyKey);
      announce('Broker credentials removed.');
    },
    { key: 'remove-credentials', tone: 'secondary' },
  );
  const describe = () => {
    const e = page.shown.endpoint;
    now.textContent = `Set now: ${credentialsText(e)}.`;
    username.input.value = e.credentials?.username ?? '';
    password.input.placeholder = e.credentials ? 'set: type a new one to replace it' : '';
    show(remove, Boolean(e.credentials));
  };

  /**
   * @param {{ username: string, password: string } | null} credentials
   * @param {string} idempotencyKey
   */
  async function send(credentials, idempotencyKey) {
    const { etag } = page.shown;
    try {
      await apiWithETag('PATCH', path`/v1/webhook-endpoints/${page.id}`, {
        idempotencyKey,
        ...(etag ? { ifMatch: etag } : {}),
        body: { credentials },
      });
    } catch (error) {
      if (statusOf(error) !== 412) throw error;
      await saved();
      describe();
      throw new Error('This endpoint was changed elsewhere meanwhile, and nothing was saved: save again.');
    }
    password.input.value = '';
    await saved();
    describe();
  }

  /** @param {string} idempotencyKey */
  async function save(idempotencyKey) {
    username.say('');
    password.say('');
    const user = username.input.value.trim();
    if (!user) {
      username.say('Give a username, or remove the credentials.');
      throw new Error('The broker credentials need a username.');
    }
    // The password is never shown back, so a save always sends the pair: an empty field would
    // replace the stored password with an empty one.
    if (!password.input.value) {
      password.say('Type the password: it is never shown, and saving replaces both.');
      password.input.focus();
      throw new Error('Type the password to save the credentials.');
    }
    await send({ username: user, password: password.input.value }, idempotencyKey);
    announce('Broker credentials updated.');
  }

  describe();
  const form = h(
    'form',
    { class: 'form', novalidate: true, autocomplete: 'off' },
    now,
    username.node,
    password.node,
  );
  form.append(
    h(
      'div',
      { class: 'actions' },
      actionButton('Save credentials', save, { key: 'save-credentials' }),
      remove,
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    /** @type {HTMLElement | null} */ (form.querySelector('[data-key="save-credentials"]'))?.click();
  });
  return form;
}
