// @ts-check
// Where an endpoint's events go, as form fields: the URL (a webhook's, or a broker's), and each broker
// kind's own settings (docs/destinations.md): AMQP exchange and routing key, NATS subject, MQTT topic
// and QoS. Shared by the add form (every kind, chosen there) and the settings form (the endpoint's
// kind, fixed for life). A field the service refuses is said next to it, in the service's words.
import { ApiError } from './api.js';
import { h, nextId } from './dom.js';
import { URL_HINT } from './endpoint-fields.js';
import { field } from './ui.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */
/** @typedef {import('./types.js').DestinationKind} Kind */

/** @param {string | undefined} kind */
export const isBroker = (kind) => kind === 'amqp' || kind === 'nats' || kind === 'mqtt';

/** The kind select's options, in the order shown. */
export const KIND_OPTIONS = /** @type {const} */ ([
  ['webhook', 'Webhook: POST to a URL'],
  ['amqp', 'AMQP: publish to RabbitMQ'],
  ['nats', 'NATS: publish to JetStream'],
  ['mqtt', 'MQTT: publish to a topic'],
  ['poll', 'Poll: read from the API'],
]);

/** @type {Record<Kind, { label: string, placeholder: string, hint: string }>} */
const URLS = {
  webhook: { label: 'URL', placeholder: 'https://example.com/hooks', hint: URL_HINT },
  amqp: {
    label: 'Broker URL',
    placeholder: 'amqps://broker.example.com/vhost',
    hint: 'amqps://host[:5671]/vhost. The service connects to it; user:password@ in it is kept as the credentials.',
  },
  nats: {
    label: 'Broker URL',
    placeholder: 'tls://nats.example.com:4222',
    hint: 'tls://host[:4222]. The service connects to it; user:password@ in it is kept as the credentials.',
  },
  mqtt: {
    label: 'Broker URL',
    placeholder: 'mqtts://mqtt.example.com:8883',
    hint: 'mqtts://host[:8883] (MQTT v5). The service connects to it; user:password@ in it is kept as the credentials.',
  },
  poll: { label: 'URL', placeholder: '', hint: '' },
};

/**
 * Shows or hides a part of a form. Not `hidden`: `.field`'s display (grid) overrides it.
 * @param {HTMLElement} node
 * @param {boolean} shown
 */
export const show = (node, shown) => {
  node.style.display = shown ? '' : 'none';
};

/**
 * An input with its field and the place its refusal is said.
 * @template {HTMLInputElement | HTMLSelectElement} I
 * @param {string} label
 * @param {I} input
 * @param {string} [hint]
 */
export function checkedField(label, input, hint) {
  const error = h('p', { class: 'field-error', id: nextId('error') });
  const node = field(label, input, hint);
  node.append(error);
  /** @param {string} message empty: no error */
  const say = (message) => {
    error.textContent = message;
    if (message) {
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-errormessage', error.id);
    } else {
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-errormessage');
    }
  };
  return { node, input, say };
}

/** @param {string} name @param {string} [placeholder] */
const text = (name, placeholder) =>
  /** @type {HTMLInputElement} */ (
    h('input', {
      type: 'text',
      name,
      maxlength: '255',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder,
    })
  );

/**
 * The URL and the broker settings of an endpoint of `kind` (changed later by `setKind`).
 * @param {Kind} kind
 */
export function destinationFields(kind) {
  const url = checkedField(
    'URL',
    /** @type {HTMLInputElement} */ (h('input', { type: 'url', name: 'url', spellcheck: 'false' })),
    URL_HINT,
  );
  const exchange = checkedField(
    'Exchange',
    text('exchange', 'events'),
    'Empty: the default exchange (the routing key names a queue).',
  );
  const routingKey = checkedField(
    'Routing key',
    text('routingKey', '{type}'),
    '{type} is the event type, e.g. surety.{type}. Empty: {type}.',
  );
  const subject = checkedField(
    'Subject',
    text('subject', 'events.{type}'),
    'A JetStream stream must capture it. {type} is the event type; no spaces or wildcards.',
  );
  const topic = checkedField(
    'Topic',
    text('topic', 'events/{type}'),
    '{type} is the event type; no wildcards.',
  );
  const qos = checkedField(
    'QoS',
    /** @type {HTMLSelectElement} */ (
      h('select', { name: 'qos' }, h('option', { value: '1' }, '1: at least once'))
    ),
    'QoS 1 only: the broker’s PUBACK is the confirmation.',
  );
  /** @type {Record<string, { node: HTMLElement, input: HTMLInputElement | HTMLSelectElement, say: (m: string) => void }>} */
  const byPath = {
    '/url': url,
    '/destination/exchange': exchange,
    '/destination/routingKey': routingKey,
    '/destination/subject': subject,
    '/destination/topic': topic,
    '/destination/qos': qos,
  };
  const groups = {
    amqp: h('div', { class: 'field-group', dataset: { kind: 'amqp' } }, exchange.node, routingKey.node),
    nats: h('div', { class: 'field-group', dataset: { kind: 'nats' } }, subject.node),
    mqtt: h('div', { class: 'field-group', dataset: { kind: 'mqtt' } }, topic.node, qos.node),
  };
  let current = kind;
  const urlLabel = /** @type {HTMLLabelElement} */ (url.node.querySelector('label'));
  const urlHint = /** @type {HTMLElement} */ (url.node.querySelector('.hint'));

  /** @param {Kind} next */
  function setKind(next) {
    current = next;
    const u = URLS[next];
    urlLabel.textContent = u.label;
    urlHint.textContent = u.hint;
    url.input.setAttribute('placeholder', u.placeholder);
    show(url.node, next !== 'poll');
    for (const [k, g] of Object.entries(groups)) show(g, k === next);
    clearErrors();
  }

  function clearErrors() {
    for (const f of Object.values(byPath)) f.say('');
  }

  /**
   * The kind's settings as the API takes them; undefined for a webhook or poll endpoint.
   * @returns {import('./types.js').Endpoint['destination'] | undefined}
   */
  function destination() {
    if (current === 'amqp')
      return {
        exchange: exchange.input.value.trim(),
        routingKey: routingKey.input.value.trim() || '{type}',
      };
    if (current === 'nats') return { subject: subject.input.value.trim() };
    if (current === 'mqtt') return { topic: topic.input.value.trim(), qos: /** @type {1} */ (1) };
    return undefined;
  }

  /** @param {Endpoint} e */
  function fill(e) {
    url.input.value = e.url;
    const d = /** @type {Record<string, unknown>} */ (e.destination ?? {});
    exchange.input.value = typeof d.exchange === 'string' ? d.exchange : '';
    routingKey.input.value = typeof d.routingKey === 'string' ? d.routingKey : '';
    subject.input.value = typeof d.subject === 'string' ? d.subject : '';
    topic.input.value = typeof d.topic === 'string' ? d.topic : '';
  }

  /**
   * Says each refused field next to it; returns the first such input (to focus), if any.
   * @param {unknown} error
   * @returns {HTMLInputElement | HTMLSelectElement | undefined}
   */
  function showErrors(error) {
    if (!(error instanceof ApiError)) return undefined;
    /** @type {HTMLInputElement | HTMLSelectElement | undefined} */
    let first;
    for (const e of error.errors) {
      const f = e.path && e.message ? byPath[e.path] : undefined;
      if (!f) continue;
      f.say(e.path === '/url' ? `The service refused this URL: ${e.message}` : `Refused: ${e.message}`);
      first ??= f.input;
    }
    return first;
  }

  setKind(kind);
  return {
    nodes: [url.node, groups.amqp, groups.nats, groups.mqtt],
    url: url.input,
    get kind() {
      return current;
    },
    setKind,
    destination,
    fill,
    clearErrors,
    showErrors,
  };
}
