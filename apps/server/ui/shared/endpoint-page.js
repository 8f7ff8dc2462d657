// @ts-check
// `#/endpoints/:id`: health, the operator's actions, the endpoint's deliveries, its settings and
// deletion. This view instance owns the version shown; its parts read it through `page`.
import { apiWithETag, path } from './api.js';
import { h } from './dom.js';
import { endpointActions } from './endpoint-actions.js';
import { authForm } from './endpoint-auth-form.js';
import { endpointTitle } from './endpoint-badges.js';
import { credentialsForm } from './endpoint-credentials.js';
import { endpointDelete } from './endpoint-delete.js';
import { endpointDeliveries } from './endpoint-deliveries.js';
import { isBroker } from './endpoint-destination.js';
import { settingsForm } from './endpoint-settings.js';
import { endpointSummary } from './endpoint-summary.js';
import { section } from './ui.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */

/** @param {string} id */
const read = (id) =>
  /** @type {Promise<{ data: Endpoint, etag: string | null }>} */ (
    apiWithETag('GET', path`/v1/webhook-endpoints/${id}`)
  );

/** @type {import('./types.js').View<{ id: string }>} */
export async function endpointView({ id }, ctx) {
  // The ETag of the version shown: a delete carries it (If-Match), so it cannot remove an endpoint
  // that changed since it was last shown.
  const { data: endpoint, etag } = await read(id);
  const summary = endpointSummary();
  const deliveries = endpointDeliveries({ id, ctx, broker: isBroker(endpoint.kind) });

  /** @type {import('./types.js').EndpointPage} */
  const page = {
    id,
    ctx,
    shown: { endpoint, etag },
    async refresh() {
      page.shown = await read(id).then(({ data, etag }) => ({ endpoint: data, etag }));
      if (!ctx.alive()) return false;
      summary.render(page.shown.endpoint);
      actions.render();
      await deliveries.load(true);
      return (page.shown.endpoint.health?.pendingDeliveries ?? 0) > 0;
    },
  };
  // A read-only session (the portal's) sees no action, no settings form and no delete.
  const actions = ctx.canWrite ? endpointActions(page) : { node: null, output: null, render() {} };

  summary.render(endpoint);
  actions.render();
  const settings = ctx.canWrite
    ? settingsForm({
        id,
        endpoint,
        etag,
        saved: async (saved) => {
          const title = document.getElementById('page-title');
          if (title) title.textContent = endpointTitle(saved);
          await page.refresh();
        },
      })
    : null;
  // Receiver authentication: webhook endpoints only (a broker's credentials are its own).
  const receiverAuth =
    ctx.canWrite && (endpoint.kind ?? 'webhook') === 'webhook'
      ? authForm({ page, saved: page.refresh })
      : null;
  // A broker endpoint's credentials instead: write-only, replaced or removed on their own.
  const brokerCredentials =
    ctx.canWrite && isBroker(endpoint.kind) ? credentialsForm({ page, saved: page.refresh }) : null;
  const danger = ctx.canWrite ? endpointDelete(page) : null;
  await deliveries.load(true);
  ctx.poll(page.refresh, (endpoint.health?.pendingDeliveries ?? 0) > 0);

  return {
    title: endpointTitle(endpoint),
    crumbs: [['Endpoints', '#/']],
    node: h(
      'div',
      { class: 'stack' },
      summary.node,
      ctx.canWrite ? section('Actions', actions.node, actions.output) : null,
      section('Deliveries', deliveries.toolbar, deliveries.node),
      settings ? section('Settings', settings) : null,
      receiverAuth ? section('Receiver authentication', receiverAuth) : null,
      brokerCredentials ? section('Broker credentials', brokerCredentials) : null,
      danger ? section('Delete this endpoint', danger) : null,
    ),
  };
}
