// Events: the recent list, the full list with a type filter, and one event with its deliveries and
// each delivery's attempts, where an event is replayed.
import { api, path } from './api.js';
import { badge, facts, h, replaceChildren, table } from './dom.js';
import { duration, exact, plural, when } from './format.js';
import { actionButton, announce, deliveryBadge, field, moreButton, section } from './ui.js';

const eventRows = (events) =>
  events.map((e) => ({
    cells: [
      h('a', { href: `#/events/${e.id}`, dataset: { key: `ev-${e.id}` } }, e.type),
      e.resource ? h('code', {}, e.resource) : '—',
      h('code', { class: 'id' }, e.id),
      when(e.createdAt),
    ],
  }));

const EVENT_COLUMNS = ['Type', 'Resource', 'Event id', 'Created'];

/** The latest `limit` events, for the overview. */
export async function recentEvents(ctx, limit) {
  const page = await api('GET', `/v1/events?limit=${limit}`);
  if (!ctx.alive()) return h('div');
  return h(
    'div',
    {},
    page.data.length === 0
      ? h('p', { class: 'empty' }, 'No events yet.')
      : table('Recent events, newest first', EVENT_COLUMNS, eventRows(page.data)),
    page.hasMore ? h('p', {}, h('a', { href: '#/events' }, 'All events →')) : null,
  );
}

/** `#/events`: every event, newest first, filtered by type. */
export async function eventsView(_params, ctx) {
  const out = h('div');
  const type = h('input', {
    type: 'text',
    name: 'type',
    placeholder: 'e.g. order.shipped',
    spellcheck: 'false',
  });
  let rows = [];
  let cursor = null;

  async function load(reset) {
    const q = new URLSearchParams({ limit: '50' });
    if (type.value.trim()) q.set('type', type.value.trim());
    if (!reset && cursor) q.set('cursor', cursor);
    const page = await api('GET', `/v1/events?${q}`);
    if (!ctx.alive()) return;
    rows = reset ? page.data : rows.concat(page.data);
    cursor = page.nextCursor;
    replaceChildren(
      out,
      rows.length === 0
        ? h('p', { class: 'empty' }, type.value.trim() ? 'No events of that type.' : 'No events yet.')
        : table('Events, newest first', EVENT_COLUMNS, eventRows(rows)),
      page.hasMore ? moreButton('Show more events', () => load(false).catch(ctx.fail)) : null,
    );
  }

  const form = h(
    'form',
    { class: 'toolbar', role: 'search' },
    field('Event type', type),
    h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Filter'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    load(true).catch(ctx.fail);
  });
  await load(true);
  return { title: 'Events', node: h('div', { class: 'stack' }, section('All events', form, out)) };
}

function attemptsTable(attempts) {
  if (attempts.length === 0) return h('p', { class: 'empty' }, 'No attempts yet: the delivery is queued.');
  return table(
    'Attempts',
    ['#', 'Started', 'Answer', 'Latency', 'Response or error'],
    attempts.map((a) => ({
      attrs: { class: 'attempt', dataset: { status: a.status === null ? 'error' : String(a.status) } },
      cells: [
        String(a.attempt),
        when(a.startedAt),
        a.status === null
          ? badge('No answer', 'bad')
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
            : h('span', { class: 'muted' }, 'empty body'),
      ],
    })),
    { className: 'table-attempts' },
  );
}

/** `#/events/:id` and `#/events/:id/deliveries/:deliveryId`: the event, its deliveries, their attempts. */
export async function eventView({ id, deliveryId }, ctx) {
  const event = await api('GET', path`/v1/events/${id}`);
  const endpoints = new Map();
  const listed = await api('GET', '/v1/webhook-endpoints?limit=100').catch(() => ({ data: [] }));
  for (const e of listed.data) endpoints.set(e.id, e);
  const list = h('ol', { class: 'deliveries' });
  let focusedOnce = false;

  async function load() {
    const page = await api('GET', `${path`/v1/events/${id}/deliveries`}?limit=20`);
    const withAttempts = await Promise.all(
      page.data.map(async (d) => ({
        d,
        attempts: (await api('GET', path`/v1/deliveries/${d.id}/attempts`)).data,
      })),
    );
    if (!ctx.alive()) return false;
    replaceChildren(
      list,
      withAttempts.length === 0
        ? h('li', { class: 'empty' }, 'No endpoint subscribes to this event type, so nothing was sent.')
        : withAttempts.map(({ d, attempts }) => deliveryCard(d, attempts)),
    );
    if (deliveryId && !focusedOnce) {
      focusedOnce = true;
      list.querySelector(`[data-delivery="${CSS.escape(deliveryId)}"]`)?.scrollIntoView({ block: 'nearest' });
    }
    return page.data.some((d) => d.status === 'pending');
  }

  function deliveryCard(d, attempts) {
    const endpoint = endpoints.get(d.endpointId);
    const selected = d.id === deliveryId;
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
      attemptsTable(attempts),
      h(
        'div',
        { class: 'actions' },
        actionButton(
          'Replay to this endpoint',
          async (idempotencyKey) => replay(idempotencyKey, d.endpointId),
          { tone: 'secondary', key: `replay-${d.id}` },
        ),
      ),
    );
  }

  async function replay(idempotencyKey, endpointId) {
    const res = await api('POST', path`/v1/events/${id}/replay`, {
      idempotencyKey,
      body: endpointId ? { endpointId } : {},
    });
    announce(
      res.queued === 0
        ? 'Nothing to replay: no enabled endpoint subscribes to this event.'
        : `Replay queued: ${plural(res.queued, 'new delivery', 'new deliveries')}. Attempts appear below as they happen.`,
    );
    await load();
    ctx.startPolling();
  }

  const pending = await load();
  ctx.poll(load, pending);

  return {
    title: event.type,
    crumbs: [['Events', '#/events']],
    node: h(
      'div',
      { class: 'stack' },
      h(
        'div',
        { class: 'panel' },
        facts([
          ['Event id', h('code', { class: 'id' }, event.id)],
          ['Created', h('time', { datetime: event.createdAt }, exact(event.createdAt))],
          ['Resource', event.resource ? h('code', {}, event.resource) : null],
          ['Sequence', String(event.sequence)],
          ['API version', event.apiVersion],
        ]),
        h(
          'div',
          { class: 'actions' },
          actionButton('Replay to all endpoints', (idempotencyKey) => replay(idempotencyKey), {
            key: 'replay-all',
          }),
        ),
        h(
          'details',
          { class: 'disclosure' },
          h('summary', {}, 'Payload'),
          h('pre', { class: 'payload' }, JSON.stringify(event.data, null, 2)),
        ),
      ),
      section('Deliveries', list),
    ),
  };
}
