// @ts-check
// `#/event-types`: the catalogue of event types an endpoint can subscribe to (GET /v1/event-types):
// each type's name, description, JSON Schema and examples, and whether it is deprecated. Everything
// is the tenant's text, shown as text.
import { api } from '../shared/api.js';
import { badge, h } from '../shared/dom.js';
import { section } from '../shared/ui.js';

/** @typedef {import('../shared/types.js').EventType} EventType */

/**
 * The catalogue, all pages of it (at most 10 pages of 100).
 * @returns {Promise<EventType[]>}
 */
export async function readCatalogue() {
  /** @type {EventType[]} */
  const types = [];
  /** @type {string | null} */
  let cursor = null;
  for (let i = 0; i < 10; i++) {
    const q = new URLSearchParams({ limit: '100' });
    if (cursor) q.set('cursor', cursor);
    /** @type {EventType[] | import('../shared/types.js').Page<EventType>} */
    const page = await api('GET', `/v1/event-types?${q}`);
    if (Array.isArray(page)) return page;
    types.push(...page.data);
    if (!page.hasMore || !page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return types;
}

/** @param {unknown} value */
const json = (value) => JSON.stringify(value, null, 2);

/** @param {EventType} t */
function typeCard(t) {
  const examples = Array.isArray(t.examples) ? t.examples : [];
  return h(
    'li',
    { class: `card event-type${t.deprecated ? ' is-disabled' : ''}`, dataset: { type: t.name } },
    h(
      'div',
      { class: 'card-head' },
      h('h3', { class: 'card-title' }, h('code', {}, t.name)),
      t.deprecated ? badge('Deprecated', 'warn') : null,
    ),
    t.description ? h('p', {}, t.description) : null,
    t.deprecated
      ? h(
          'p',
          { class: 'hint' },
          'Still delivered to endpoints that subscribe, but new endpoints should not.',
        )
      : null,
    t.schema === undefined
      ? null
      : h(
          'details',
          { class: 'disclosure' },
          h('summary', {}, 'Schema of the payload'),
          h('pre', { class: 'payload' }, json(t.schema)),
        ),
    examples.length === 0
      ? null
      : h(
          'details',
          { class: 'disclosure' },
          h('summary', {}, examples.length === 1 ? 'Example' : `Examples (${examples.length})`),
          examples.map((e) => h('pre', { class: 'payload' }, json(e))),
        ),
  );
}

/** @type {import('../shared/types.js').View<{}>} */
export async function catalogueView() {
  const types = await readCatalogue();
  return {
    title: 'Event types',
    node: h(
      'div',
      { class: 'stack' },
      section(
        'What your endpoints can receive',
        h(
          'p',
          { class: 'hint' },
          'Each event is a JSON object; its data follows the schema of its type. Subscribe an endpoint ' +
            'to the types it needs when you add it.',
        ),
        types.length === 0
          ? h('p', { class: 'empty' }, 'No event types are published yet.')
          : h('ul', { class: 'cards cards-wide' }, types.map(typeCard)),
      ),
    ),
  };
}
