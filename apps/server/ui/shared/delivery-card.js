// @ts-check
// One delivery of an event, as a card: where it went, its status, every attempt, and its replay.
import { badge, facts, h, table } from './dom.js';
import { duration, when } from './format.js';
import { actionButton, deliveryBadge } from './ui.js';

/** @typedef {import('./types.js').Attempt} Attempt */
/** @typedef {import('./types.js').Delivery} Delivery */

/**
 * @param {Attempt[]} attempts
 * @param {import('./types.js').DestinationKind} [kind] the endpoint's: a broker's attempt has no HTTP
 *   status; without an error it is the broker's confirmation
 */
export function attemptsTable(attempts, kind = 'webhook') {
  const broker = kind === 'amqp' || kind === 'nats' || kind === 'mqtt';
  /** @param {Attempt} a */
  const confirmed = (a) => broker && a.status === null && !a.errorCode;
  if (attempts.length === 0) return h('p', { class: 'empty' }, 'No attempts yet: the delivery is queued.');
  return table(
    'Attempts',
    ['#', 'Started', 'Answer', 'Latency', 'Response or error'],
    attempts.map((a) => ({
      attrs: {
        class: 'attempt',
        dataset: { status: confirmed(a) ? 'confirmed' : a.status === null ? 'error' : String(a.status) },
      },
      cells: [
        String(a.attempt),
        when(a.startedAt),
        confirmed(a)
          ? badge('Confirmed', 'ok')
          : a.status === null
            ? badge(broker ? 'Not confirmed' : 'No answer', 'bad')
            : badge(`HTTP ${a.status}`, a.status >= 200 && a.status < 300 ? 'ok' : 'bad'),
        duration(a.durationMs),
        a.errorCode || a.errorMessage
          ? h(
              'div',
              {},
              h('span', { class: 'error-text' }, [a.errorCode, a.errorMessage].filter(Boolean).join(': ')),
              a.responseExcerpt ? h('pre', { class: 'excerpt' }, a.responseExcerpt) : null,
            )
          : a.responseExcerpt
            ? h('pre', { class: 'excerpt' }, a.responseExcerpt)
            : h('span', { class: 'muted' }, confirmed(a) ? 'the broker confirmed the publish' : 'empty body'),
      ],
    })),
    { className: 'table-attempts' },
  );
}

/**
 * @typedef {object} DeliveryCardOptions
 * @property {Delivery} delivery
 * @property {Attempt[]} attempts
 * @property {import('./types.js').Endpoint | undefined} endpoint where it went, when listed
 * @property {boolean} selected the delivery the URL names
 * @property {((idempotencyKey: string, endpointId: string) => Promise<unknown>) | undefined} replay
 *   absent: no replay button (a read-only session)
 */

/** @param {DeliveryCardOptions} options */
export function deliveryCard({ delivery: d, attempts, endpoint, selected, replay }) {
  return h(
    'li',
    {
      class: `card delivery${selected ? ' is-selected' : ''}`,
      dataset: { delivery: d.id, status: d.status },
      'aria-current': selected ? 'true' : undefined,
    },
    h(
      'div',
      { class: 'card-head' },
      h(
        'h3',
        { class: 'card-title' },
        'To ',
        h(
          'a',
          { href: `#/endpoints/${d.endpointId}`, dataset: { key: `to-${d.id}` } },
          endpoint?.description || endpoint?.url || d.endpointId,
        ),
      ),
      deliveryBadge(d),
    ),
    facts(
      [
        ['Delivery', h('code', { class: 'id' }, d.id)],
        ['Created', when(d.createdAt)],
        ['Completed', d.completedAt ? when(d.completedAt) : null],
        ['Attempts', String(d.attempts)],
      ],
      'facts facts-inline',
    ),
    attemptsTable(attempts, endpoint?.kind),
    replay
      ? h(
          'div',
          { class: 'actions' },
          actionButton(
            'Replay to this endpoint',
            async (idempotencyKey) => replay(idempotencyKey, d.endpointId),
            { tone: 'secondary', key: `replay-${d.id}` },
          ),
        )
      : null,
  );
}
