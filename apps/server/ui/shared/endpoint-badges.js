// @ts-check
// How an endpoint's state reads at a glance: enabled or not, its circuit breaker, its throttle, its
// success rate.
import { badge, h } from './dom.js';
import { ago, plural, rate, rateTone, when } from './format.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */

/** @param {Endpoint} e */
export const statusBadge = (e) =>
  e.status === 'enabled' ? badge('Enabled', 'ok') : badge('Disabled', 'bad');

/** @type {Record<string, string>} */
const KINDS = { amqp: 'AMQP', nats: 'NATS', mqtt: 'MQTT', poll: 'Poll' };

/**
 * A broker endpoint's kind (a webhook has none: it is the default).
 * @param {Endpoint} e
 */
export const kindBadge = (e) =>
  e.kind && e.kind !== 'webhook' ? badge(KINDS[e.kind] ?? e.kind, 'neutral') : null;

/**
 * An endpoint's name: its description, else its kind's ("MQTT endpoint").
 * @param {Endpoint} e
 */
export const endpointTitle = (e) =>
  e.description || `${e.kind && e.kind !== 'webhook' ? (KINDS[e.kind] ?? e.kind) : 'Webhook'} endpoint`;

/**
 * Where a broker endpoint publishes, in words (`exchange "events", routing key {type}`); null for a
 * webhook.
 * @param {Endpoint} e
 */
export function destinationText(e) {
  if (e.kind === 'poll') return `read by its consumer: GET /v1/webhook-endpoints/${e.id}/poll`;
  const d = e.destination;
  if (!d || e.kind === 'webhook') return null;
  if ('exchange' in d)
    return `exchange ${d.exchange === '' ? '(the default)' : `"${d.exchange}"`}, routing key ${d.routingKey}`;
  if ('subject' in d) return `subject ${d.subject}`;
  if ('topic' in d) return `topic ${d.topic}, QoS ${d.qos}`;
  return null;
}

/**
 * A broker endpoint's credentials in words: the username, and the password only as "set" (the
 * API never returns it); null for a webhook or poll endpoint.
 * @param {Endpoint} e
 */
export function credentialsText(e) {
  if (e.kind === 'webhook' || e.kind === 'poll') return null;
  return e.credentials
    ? `user ${e.credentials.username}, password set`
    : 'none (the service connects without credentials)';
}

/**
 * The circuit breaker, when it is not closed: open (waiting for its probe) or half open (probing).
 * @param {Endpoint} e
 */
export const circuitBadge = (e) =>
  !e.circuit || e.circuit.state === 'closed'
    ? null
    : badge(e.circuit.state === 'open' ? 'Circuit open' : 'Probing', 'warn');

/**
 * What an open breaker means for the endpoint's deliveries, in words.
 * @param {Endpoint} e
 */
export function circuitCallout(e) {
  if (!e.circuit || e.circuit.state === 'closed') return null;
  const c = e.circuit;
  return h(
    'div',
    { class: 'callout callout-warn', dataset: { circuit: c.state } },
    h('strong', {}, 'Circuit breaker open'),
    c.openedAt ? ` ${ago(c.openedAt)}` : '',
    ` after ${plural(c.consecutiveFailures, 'failed attempt')} in a row. Pending deliveries wait for one probe attempt (`,
    c.state === 'open' ? h('span', {}, 'next ', when(c.nextProbeAt)) : 'in progress',
    '); when it succeeds they all go out. Waiting spends none of their attempts.',
  );
}

/**
 * Adaptive throttling, when the endpoint is throttled (it answered 429/503, or slowly) or paused.
 * @param {Endpoint} e
 */
export const throttleBadge = (e) =>
  !e.throttle || e.throttle.state === 'none'
    ? null
    : badge(e.throttle.state === 'paused' ? 'Paused' : 'Throttled', 'warn');

/**
 * What the throttle means for the endpoint's deliveries, in words.
 * @param {Endpoint} e
 */
export function throttleCallout(e) {
  if (!e.throttle || e.throttle.state === 'none') return null;
  const t = e.throttle;
  return h(
    'div',
    { class: 'callout callout-warn', dataset: { throttle: t.state } },
    h('strong', {}, 'Throttled'),
    t.since ? ` ${ago(t.since)}` : '',
    ': it answered 429/503 or slower than usual, so it gets at most ',
    plural(t.inFlightCap ?? 0, 'attempt'),
    ' in flight',
    t.rate === null ? '' : ` and ${t.rate} a second`,
    ', growing back every second.',
    t.pausedUntil ? h('span', {}, ' Paused by its Retry-After until ', when(t.pausedUntil), '.') : '',
    " Throttled answers spend none of the deliveries' attempts.",
  );
}

/**
 * Success rate as a badge with its tone; the word carries the meaning, not the colour.
 * @param {Endpoint['health']} health
 */
export const rateBadge = (health) => badge(rate(health?.successRate24h), rateTone(health?.successRate24h));

/**
 * Whether any of these endpoints has deliveries waiting (the list polls while one does).
 * @param {Endpoint[]} endpoints
 */
export const anyPending = (endpoints) => endpoints.some((e) => (e.health?.pendingDeliveries ?? 0) > 0);
