// @ts-check
// `#/events/:id` and `#/events/:id/deliveries/:deliveryId`: the event, its deliveries with their
// attempts, and its replay (to all endpoints, or to one from its delivery's card).
import { api, path } from './api.js';
import { deliveryCard } from './delivery-card.js';
import { facts, h, replaceChildren } from './dom.js';
import { exact, plural } from './format.js';
import { actionButton, announce, section } from './ui.js';

/** @typedef {import('./types.js').Attempt} Attempt */
/** @typedef {import('./types.js').Delivery} Delivery */
/** @typedef {import('./types.js').Endpoint} Endpoint */

/** @type {import('./types.js').View<{ id: string, deliveryId?: string | undefined }>} */
export async function eventView({ id, deliveryId }, ctx) {
  /** @type {import('./types.js').SuretyEvent} */
  const event = await api('GET', path`/v1/events/${id}`);
  /** @type {Map<string, Endpoint>} */
  const endpoints = new Map();
  const listed = await /** @type {Promise<{ data: Endpoint[] }>} */ (
    api('GET', '/v1/webhook-endpoints?limit=100')
  ).catch(() => ({ data: [] }));
  for (const e of listed.data) endpoints.set(e.id, e);
  const list = h('ol', { class: 'deliveries' });
  let focusedOnce = false;

  /** @returns {Promise<boolean>} whether a delivery is still pending */
  async function load() {
    /** @type {import('./types.js').Page<Delivery>} */
    const page = await api('GET', `${path`/v1/events/${id}/deliveries`}?limit=20`);
    const withAttempts = await Promise.all(
      page.data.map(async (d) => ({
        d,
        attempts: /** @type {import('./types.js').Page<Attempt>} */ (
          await api('GET', path`/v1/deliveries/${d.id}/attempts`)
        ).data,
      })),
    );
    if (!ctx.alive()) return false;
    replaceChildren(
      list,
      withAttempts.length === 0
        ? h('li', { class: 'empty' }, 'No endpoint subscribes to this event type, so nothing was sent.')
        : withAttempts.map(({ d, attempts }) =>
            deliveryCard({
              delivery: d,
              attempts,
              endpoint: endpoints.get(d.endpointId),
              selected: d.id === deliveryId,
              replay: ctx.canWrite ? replay : undefined,
            }),
          ),
    );
    if (deliveryId && !focusedOnce) {
      focusedOnce = true;
      list.querySelector(`[data-delivery="${CSS.escape(deliveryId)}"]`)?.scrollIntoView({ block: 'nearest' });
    }
    return page.data.some((d) => d.status === 'pending');
  }

  /**
   * @param {string} idempotencyKey
   * @param {string} [endpointId] one endpoint; all subscribed ones when absent
   */
  async function replay(idempotencyKey, endpointId) {
    /** @type {{ queued: number }} */
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
        ctx.canWrite
          ? h(
              'div',
              { class: 'actions' },
              actionButton('Replay to all endpoints', (idempotencyKey) => replay(idempotencyKey), {
                key: 'replay-all',
              }),
            )
          : null,
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
