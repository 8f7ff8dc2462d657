// @ts-check
// `#/`: every endpoint with its health, the latest events, and a form to add an endpoint.
import { h } from '../shared/dom.js';
import { addEndpointForm } from '../shared/endpoint-add-form.js';
import { anyPending } from '../shared/endpoint-badges.js';
import { endpointList } from '../shared/endpoint-list.js';
import { recentEvents } from '../shared/events-list.js';
import { section } from '../shared/ui.js';

/** @type {import('../shared/types.js').View<{}>} */
export async function overview(_params, ctx) {
  const endpoints = endpointList(ctx);
  const first = (await endpoints.load(true)) ?? [];
  ctx.poll(async () => {
    const shown = await endpoints.load(true);
    return shown && anyPending(shown);
  }, anyPending(first));

  return {
    title: 'Webhook endpoints',
    node: h(
      'div',
      { class: 'stack' },
      section('Endpoints', ...endpoints.nodes),
      section('Recent events', await recentEvents(ctx, 8)),
      section('Add an endpoint', ...addEndpointForm({ added: () => endpoints.load(true) })),
    ),
  };
}
