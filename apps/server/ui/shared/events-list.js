// @ts-check
// Events as lists: the overview's recent events and `#/events`, every event filtered by type.
import { api } from './api.js';
import { h, replaceChildren, table } from './dom.js';
import { when } from './format.js';
import { field, moreButton, section } from './ui.js';

/** @typedef {import('./types.js').SuretyEvent} SuretyEvent */
/** @typedef {import('./types.js').Page<SuretyEvent>} EventPage */

/** @param {SuretyEvent[]} events */
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

/**
 * The latest `limit` events, for the overview.
 * @param {import('./types.js').ViewContext} ctx
 * @param {number} limit
 */
export async function recentEvents(ctx, limit) {
  /** @type {EventPage} */
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

/** `#/events`: every event, newest first, filtered by type. @type {import('./types.js').View<{}>} */
export async function eventsView(_params, ctx) {
  const out = h('div');
  const type = h('input', {
    type: 'text',
    name: 'type',
    placeholder: 'e.g. order.shipped',
    spellcheck: 'false',
  });
  /** @type {SuretyEvent[]} */
  let rows = [];
  /** @type {string | null} */
  let cursor = null;

  /** @param {boolean} reset */
  async function load(reset) {
    const q = new URLSearchParams({ limit: '50' });
    if (type.value.trim()) q.set('type', type.value.trim());
    if (!reset && cursor) q.set('cursor', cursor);
    /** @type {EventPage} */
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
