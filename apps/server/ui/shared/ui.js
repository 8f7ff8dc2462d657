// @ts-check
// Shared pieces of the interface: status messages, action buttons, the one-time secret panel.
import { newIdempotencyKey } from './api.js';
import { badge, h, nextId } from './dom.js';
import { ago, exact } from './format.js';

/** @typedef {import('./types.js').Delivery} Delivery */

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const status = () => byId('status');
const alert = () => byId('alert');

/**
 * Says something politely (aria-live="polite"); clears any error.
 * @param {string} text
 */
export function announce(text) {
  alert().textContent = '';
  status().textContent = text;
}

/**
 * Shows an error (role="alert"): the problem's `detail` when the service sent one.
 * @param {unknown} error
 */
export function announceError(error) {
  status().textContent = '';
  alert().textContent = error instanceof Error ? error.message : String(error);
}

/** Clears both messages (a navigation, or a new press of a button). */
export function clearMessages() {
  announce('');
}

/**
 * A button that runs an API action. Each press gets its own Idempotency-Key (passed to `run`), and
 * presses while one is in flight are ignored, so a double click acts once. The button stays focusable
 * while busy (aria-disabled, not disabled) so keyboard focus is not lost.
 * @param {string} label
 * @param {(idempotencyKey: string) => Promise<unknown>} run
 * @param {{ tone?: 'primary' | 'secondary' | 'danger' | 'quiet', busy?: string, key?: string }} [options]
 *   tone @default 'primary'; busy: the label while running @default 'Working…'; key: `data-key`
 */
export function actionButton(label, run, { tone = 'primary', busy = 'Working…', key } = {}) {
  const button = h(
    'button',
    { type: 'button', class: `btn btn-${tone}`, dataset: key ? { key } : {} },
    label,
  );
  button.addEventListener('click', async () => {
    if (button.getAttribute('aria-disabled') === 'true') return;
    // A message about an earlier press no longer applies.
    clearMessages();
    button.setAttribute('aria-disabled', 'true');
    button.textContent = busy;
    try {
      await run(newIdempotencyKey());
    } catch (error) {
      announceError(error);
    } finally {
      button.removeAttribute('aria-disabled');
      button.textContent = label;
    }
  });
  return button;
}

/**
 * A titled panel section.
 * @param {string} title
 * @param {import('./types.js').Child[]} children
 */
export function section(title, ...children) {
  const id = nextId('section');
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), ...children);
}

/**
 * Shows a signing secret once, with the warning that it will not be shown again. Focus moves to the
 * panel's heading so a screen reader reads it at once.
 * @param {string} secret
 * @param {{ overlapUntil?: string | undefined }} [options] when the previous secret stops verifying
 */
export function secretPanel(secret, { overlapUntil } = {}) {
  const id = nextId('secret');
  const value = h('code', { class: 'secret-value', id: `${id}-value` }, secret);
  const panel = h(
    'div',
    { class: 'secret', role: 'region', 'aria-labelledby': id },
    h('h3', { id, tabindex: '-1' }, 'New signing secret'),
    h(
      'p',
      { class: 'secret-warning' },
      h('strong', {}, 'Copy it now: '),
      'it is shown only once and cannot be retrieved later. Anyone holding it can forge webhooks.',
      overlapUntil
        ? ` The previous secret keeps verifying until ${exact(overlapUntil)}.`
        : ' The previous secret no longer verifies.',
    ),
    value,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-secondary',
          onclick: async () => {
            try {
              await navigator.clipboard.writeText(secret);
              announce('Secret copied to the clipboard.');
            } catch {
              getSelection()?.selectAllChildren(value);
              announce('Copying is not allowed here: the secret is selected, press Ctrl+C to copy it.');
            }
          },
        },
        'Copy secret',
      ),
      h(
        'button',
        {
          type: 'button',
          class: 'btn btn-quiet',
          onclick: () => {
            panel.remove();
            announce('Secret hidden. It cannot be shown again.');
          },
        },
        'I have stored it — hide',
      ),
    ),
  );
  queueMicrotask(() => panel.querySelector('h3')?.focus());
  return panel;
}

/**
 * A labelled form field.
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} input
 * @param {string} [hint]
 */
export function field(label, input, hint) {
  const id = input.id || nextId('field');
  input.id = id;
  const hintId = hint ? `${id}-hint` : undefined;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    input,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
  );
}

/**
 * "Load more" for cursor-paged lists.
 * @param {string} label
 * @param {() => void} load
 */
export function moreButton(label, load) {
  return h('button', { type: 'button', class: 'btn btn-secondary more', onclick: load }, label);
}

/**
 * A delivery's status as a badge; a pending one says when it is next tried.
 * @param {Delivery} d
 */
export function deliveryBadge(d) {
  if (d.status === 'delivered') return badge('Delivered', 'ok');
  if (d.status === 'failed') return badge('Failed', 'bad');
  return badge(d.nextAttemptAt ? `Pending, next ${ago(d.nextAttemptAt)}` : 'Pending', 'warn');
}
