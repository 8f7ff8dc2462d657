// @ts-check
// The "Add an endpoint" form (the dashboard's overview and the portal's); the new endpoint's secret
// is shown once, above it. A URL the service refuses (the SSRF guard: private addresses, bad schemes)
// is said next to the field, in the service's own words.
import { ApiError, api } from './api.js';
import { h, nextId, replaceChildren } from './dom.js';
import { eventTypeList, TYPES_HINT, URL_HINT } from './endpoint-fields.js';
import { actionButton, announce, field, secretPanel } from './ui.js';

/**
 * The event types as checkboxes, one per type of the catalogue (deprecated ones left out).
 * @param {import('./types.js').EventType[]} catalogue
 */
function typeChoices(catalogue) {
  const legend = nextId('types');
  const boxes = catalogue
    .filter((t) => !t.deprecated)
    .map((t) => h('input', { type: 'checkbox', name: 'eventTypes', value: t.name }));
  const node = h(
    'fieldset',
    { class: 'field choices', 'aria-labelledby': legend },
    h('legend', { id: legend }, 'Event types'),
    h('p', { class: 'hint' }, 'The events this endpoint receives. None ticked: every type.'),
    h(
      'ul',
      { class: 'choice-list' },
      boxes.map((box) => {
        box.id = nextId('type');
        return h('li', {}, box, h('label', { for: box.id }, h('code', {}, box.value)));
      }),
    ),
  );
  return {
    node,
    /** @returns {string[]} */
    value: () => {
      const ticked = boxes.filter((b) => b.checked).map((b) => b.value);
      return ticked.length ? ticked : ['*'];
    },
    reset: () => {
      for (const b of boxes) b.checked = false;
    },
  };
}

/**
 * @param {{ added: () => Promise<unknown>, catalogue?: import('./types.js').EventType[] | undefined }} options
 *   `added`: called once the endpoint exists (the list redraws); `catalogue`: the event types to offer
 *   as checkboxes (the portal); absent: a comma-separated field (the dashboard)
 * @returns {HTMLElement[]} the secret's place and the form's disclosure
 */
export function addEndpointForm({ added, catalogue }) {
  const created = h('div');
  const url = h('input', {
    type: 'url',
    name: 'url',
    required: true,
    placeholder: 'https://example.com/hooks',
  });
  const urlError = h('p', { class: 'field-error', id: nextId('url-error') });
  const typed = h('input', { type: 'text', name: 'eventTypes', value: '*', required: true });
  const choices = catalogue?.length ? typeChoices(catalogue) : undefined;
  const description = h('input', { type: 'text', name: 'description', maxlength: '500' });
  // Webhook (a URL the service POSTs to) or poll (the consumer reads GET …/poll: no URL).
  const kind = h(
    'select',
    { name: 'kind' },
    h('option', { value: 'webhook' }, 'Webhook: POST to a URL'),
    h('option', { value: 'poll' }, 'Poll: read from the API'),
  );
  const urlField = field('URL', url, URL_HINT);
  urlField.append(urlError);
  /** @param {string} message empty: no error */
  const showUrlError = (message) => {
    urlError.textContent = message;
    if (message) {
      url.setAttribute('aria-invalid', 'true');
      url.setAttribute('aria-errormessage', urlError.id);
    } else {
      url.removeAttribute('aria-invalid');
      url.removeAttribute('aria-errormessage');
    }
  };
  kind.addEventListener('change', () => {
    const poll = kind.value === 'poll';
    // Not `hidden`: `.field`'s display (grid) overrides it.
    urlField.style.display = poll ? 'none' : '';
    url.required = !poll;
  });
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    field('Kind', kind, 'A poll endpoint has no URL: its consumer reads its events with a cursor.'),
    urlField,
    choices ? choices.node : field('Event types', typed, TYPES_HINT),
    field('Description (optional)', description),
  );
  form.append(
    h(
      'div',
      { class: 'actions' },
      actionButton('Add endpoint', async (idempotencyKey) => {
        showUrlError('');
        const eventTypes = choices ? choices.value() : eventTypeList(typed.value);
        /** @type {import('./types.js').Endpoint} */
        let endpoint;
        try {
          endpoint = await api('POST', '/v1/webhook-endpoints', {
            idempotencyKey,
            body: {
              ...(kind.value === 'poll' ? { kind: 'poll' } : { url: url.value.trim() }),
              eventTypes,
              ...(description.value.trim() ? { description: description.value.trim() } : {}),
            },
          });
        } catch (error) {
          const refused =
            error instanceof ApiError ? error.errors.find((e) => e.path === '/url' && e.message) : undefined;
          if (refused) {
            showUrlError(`The service refused this URL: ${refused.message}`);
            url.focus();
          }
          throw error;
        }
        form.reset();
        urlField.style.display = '';
        url.required = true;
        typed.value = '*';
        choices?.reset();
        announce(`Endpoint ${endpoint.id} added.`);
        replaceChildren(created, secretPanel(endpoint.secret ?? ''));
        await added();
      }),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    form.querySelector('button')?.click();
  });
  return [created, h('details', { class: 'disclosure' }, h('summary', {}, 'New endpoint'), form)];
}
