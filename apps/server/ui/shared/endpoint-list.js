// @ts-check
// The overview's endpoint cards, each with its health, paged with "Show more".
import { api, path } from './api.js';
import { facts, h, replaceChildren } from './dom.js';
import {
  circuitBadge,
  destinationText,
  endpointTitle,
  kindBadge,
  rateBadge,
  statusBadge,
  throttleBadge,
} from './endpoint-badges.js';
import { when } from './format.js';
import { moreButton } from './ui.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */

/** @param {Endpoint} e */
function endpointCard(e) {
  return h(
    'li',
    { class: `card endpoint-card${e.status === 'disabled' ? ' is-disabled' : ''}` },
    h(
      'div',
      { class: 'card-head' },
      h(
        'a',
        { class: 'card-title', href: `#/endpoints/${e.id}`, dataset: { key: `ep-${e.id}` } },
        e.description || e.url || endpointTitle(e),
      ),
      kindBadge(e),
      statusBadge(e),
      circuitBadge(e),
      throttleBadge(e),
    ),
    e.description && e.url ? h('p', { class: 'muted url' }, e.url) : null,
    e.kind === 'webhook' || e.kind === 'poll' ? null : h('p', { class: 'muted' }, destinationText(e)),
    e.status === 'disabled'
      ? h(
          'p',
          { class: 'disabled-reason' },
          h('strong', {}, 'Disabled: '),
          e.disabledReason || 'by an operator',
        )
      : null,
    facts(
      [
        ['Success (24 h)', rateBadge(e.health)],
        ['Last success', when(e.lastSuccessAt, 'never')],
        ['Last failure', when(e.lastFailureAt, 'never')],
        ['Pending', String(e.health?.pendingDeliveries ?? '—')],
      ],
      'facts facts-inline',
    ),
  );
}

/**
 * The list of endpoint cards. `load(true)` redraws the first page, `load(false)` appends the next;
 * each resolves to the endpoints it read (undefined when the view is gone by then).
 * @param {import('./types.js').ViewContext} ctx
 * @param {{ empty?: string }} [options] what an empty list says
 */
export function endpointList(
  ctx,
  { empty = 'No webhook endpoints yet. Add one below to start receiving events.' } = {},
) {
  const list = h('ul', { class: 'cards' });
  const more = h('div');
  /** @type {string | null} */
  let cursor = null;

  /**
   * @param {boolean} reset
   * @returns {Promise<Endpoint[] | undefined>}
   */
  async function load(reset) {
    /** @type {import('./types.js').Page<Endpoint>} */
    const page = await api(
      'GET',
      `/v1/webhook-endpoints?limit=20${!reset && cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    // The list has no health: each endpoint's own answer carries it (20 small reads, in parallel).
    const detailed = await Promise.all(
      page.data.map((e) =>
        /** @type {Promise<Endpoint>} */ (api('GET', path`/v1/webhook-endpoints/${e.id}`)).catch(() => e),
      ),
    );
    if (!ctx.alive()) return undefined;
    cursor = page.nextCursor;
    const cards = detailed.map(endpointCard);
    if (reset) replaceChildren(list, cards);
    else list.append(...cards);
    if (reset && detailed.length === 0) {
      list.append(h('li', { class: 'empty' }, empty));
    }
    replaceChildren(
      more,
      page.hasMore ? moreButton('Show more endpoints', () => load(false).catch(ctx.fail)) : null,
    );
    return detailed;
  }

  return { nodes: [list, more], load };
}
