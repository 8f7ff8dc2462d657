// @ts-check
// The overview's "Add an endpoint" form; the new endpoint's secret is shown once, above it.
import { api } from './api.js';
import { h, replaceChildren } from './dom.js';
import { eventTypeList, TYPES_HINT, URL_HINT } from './endpoint-fields.js';
import { actionButton, announce, field, secretPanel } from './ui.js';

/**
 * @param {{ added: () => Promise<unknown> }} options `added`: called once the endpoint exists (the
 *   list redraws)
 * @returns {HTMLElement[]} the secret's place and the form's disclosure
 */
export function addEndpointForm({ added }) {
  const created = h('div');
  const url = h('input', {
    type: 'url',
    name: 'url',
    required: true,
    placeholder: 'https://example.com/hooks',
  });
  const types = h('input', { type: 'text', name: 'eventTypes', value: '*', required: true });
  const description = h('input', { type: 'text', name: 'description', maxlength: '500' });
  const form = h(
    'form',
    { class: 'form', novalidate: true },
    field('URL', url, URL_HINT),
    field('Event types', types, TYPES_HINT),
    field('Description (optional)', description),
  );
  form.append(
    h(
      'div',
      { class: 'actions' },
      actionButton('Add endpoint', async (idempotencyKey) => {
        const eventTypes = eventTypeList(types.value);
        /** @type {import('./types.js').Endpoint} */
        const endpoint = await api('POST', '/v1/webhook-endpoints', {
          idempotencyKey,
          body: {
            url: url.value.trim(),
            eventTypes,
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
          },
        });
        form.reset();
        types.value = '*';
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
