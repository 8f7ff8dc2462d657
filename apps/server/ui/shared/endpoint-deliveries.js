// @ts-check
// An endpoint's deliveries, newest first, filtered by status, paged with "Show more".
import { api, path } from './api.js';
import { h, replaceChildren, table } from './dom.js';
import { when } from './format.js';
import { deliveryBadge, field, moreButton } from './ui.js';

/** @typedef {import('./types.js').Delivery} Delivery */

/**
 * @param {Delivery[]} deliveries
 * @param {boolean} broker a broker's delivery has no HTTP answer: its success is the confirmation
 */
function deliveryRows(deliveries, broker) {
  return deliveries.map((d) => ({
    attrs: { dataset: { status: d.status } },
    cells: [
      h(
        'a',
        { href: `#/events/${d.eventId}/deliveries/${d.id}`, dataset: { key: `dl-${d.id}` } },
        d.eventType ?? d.eventId,
      ),
      deliveryBadge(d),
      String(d.attempts),
      d.lastStatus
        ? `HTTP ${d.lastStatus}`
        : d.lastError
          ? 'error'
          : broker && d.status === 'delivered'
            ? 'confirmed'
            : '—',
      d.lastError ? h('span', { class: 'error-text' }, d.lastError) : '—',
      when(d.createdAt),
    ],
  }));
}

/**
 * The deliveries of endpoint `id`: `toolbar` (the status filter) and `node` (the table). The rows
 * shown and the cursor belong to this instance.
 * @param {{ id: string, ctx: import('./types.js').ViewContext, broker?: boolean }} options
 */
export function endpointDeliveries({ id, ctx, broker = false }) {
  const node = h('div');
  const filter = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'All'),
    h('option', { value: 'failed' }, 'Failed'),
    h('option', { value: 'pending' }, 'Pending'),
    h('option', { value: 'delivered' }, 'Delivered'),
  );
  /** @type {Delivery[]} */
  let rows = [];
  /** @type {string | null} */
  let cursor = null;

  /** @param {boolean} reset */
  async function load(reset) {
    const q = new URLSearchParams({ limit: '20' });
    if (filter.value) q.set('status', filter.value);
    if (!reset && cursor) q.set('cursor', cursor);
    /** @type {import('./types.js').Page<Delivery>} */
    const page = await api('GET', `${path`/v1/webhook-endpoints/${id}/deliveries`}?${q}`);
    if (!ctx.alive()) return;
    rows = reset ? page.data : rows.concat(page.data);
    cursor = page.nextCursor;
    replaceChildren(
      node,
      rows.length === 0
        ? h('p', { class: 'empty' }, filter.value ? `No ${filter.value} deliveries.` : 'No deliveries yet.')
        : table(
            'Deliveries, newest first',
            ['Event', 'Status', 'Attempts', 'Last answer', 'Last error', 'Created'],
            deliveryRows(rows, broker),
          ),
      page.hasMore ? moreButton('Show more deliveries', () => load(false).catch(ctx.fail)) : null,
    );
  }

  filter.addEventListener('change', () => load(true).catch(ctx.fail));
  return { toolbar: h('div', { class: 'toolbar' }, field('Show', filter)), node, load };
}
