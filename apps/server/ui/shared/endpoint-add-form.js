// @ts-check
// The "Add an endpoint" form (the dashboard's overview and the portal's), for every kind: webhook,
// AMQP, NATS, MQTT (the broker URL, the kind's settings, credentials) and poll. The new endpoint's
// secret is shown once, above it. A field the service refuses (the SSRF guard: private addresses, bad
// schemes; a bad subject or topic) is said next to it, in the service's own words.
import { api } from './api.js';
import { h, nextId, replaceChildren } from './dom.js';
import { credentialFields } from './endpoint-credentials.js';
import { destinationFields, isBroker, KIND_OPTIONS, show } from './endpoint-destination.js';
import { eventTypeList, TYPES_HINT } from './endpoint-fields.js';
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
  const typed = h('input', { type: 'text', name: 'eventTypes', value: '*', required: true });
  const choices = catalogue?.length ? typeChoices(catalogue) : undefined;
  const description = h('input', { type: 'text', name: 'description', maxlength: '500' });
  // Webhook (a URL the service POSTs to), a broker (a URL it publishes to, with the kind's
  // settings and credentials), or poll (the consumer reads GET …/poll: no URL).
  const kind = h(
    'select',
    { name: 'kind' },
    KIND_OPTIONS.map(([value, label]) => h('option', { value }, label)),
  );
  const where = destinationFields('webhook');
  const credentials = credentialFields();
  const setKind = () => {
    const k = /** @type {import('./types.js').DestinationKind} */ (kind.value);
    where.setKind(k);
    show(credentials.node, isBroker(k));
  };
  kind.addEventListener('change', setKind);
  setKind();
  const form = h(
    'form',
    { class: 'form', novalidate: true, autocomplete: 'off' },
    field(
      'Kind',
      kind,
      'How events leave: POSTed to a URL, published to your broker (confirmed by it), or read with a cursor (poll: no URL).',
    ),
    where.nodes,
    credentials.node,
    choices ? choices.node : field('Event types', typed, TYPES_HINT),
    field('Description (optional)', description),
  );

  /** The request body the form describes. */
  const body = () => {
    const k = kind.value;
    const eventTypes = choices ? choices.value() : eventTypeList(typed.value);
    const given = credentials.value();
    return {
      ...(k === 'webhook' ? {} : { kind: k }),
      ...(k === 'poll' ? {} : { url: where.url.value.trim() }),
      ...(isBroker(k) ? { destination: where.destination() } : {}),
      ...(isBroker(k) && given ? { credentials: given } : {}),
      eventTypes,
      ...(description.value.trim() ? { description: description.value.trim() } : {}),
    };
  };

  form.append(
    h(
      'div',
      { class: 'actions' },
      actionButton('Add endpoint', async (idempotencyKey) => {
        where.clearErrors();
        credentials.clearErrors();
        /** @type {import('./types.js').Endpoint} */
        let endpoint;
        try {
          endpoint = await api('POST', '/v1/webhook-endpoints', { idempotencyKey, body: body() });
        } catch (error) {
          (where.showErrors(error) ?? credentials.showErrors(error))?.focus();
          throw error;
        }
        form.reset();
        typed.value = '*';
        choices?.reset();
        setKind();
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
