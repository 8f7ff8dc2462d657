// @ts-check
// The portal's `#/`: the application's endpoints with their health, and (unless read-only) the form
// to add one, subscribed to types of the catalogue. Every call is scoped by the session's token: the
// service answers with this application's endpoints only.
import { h } from '../shared/dom.js';
import { addEndpointForm } from '../shared/endpoint-add-form.js';
import { anyPending } from '../shared/endpoint-badges.js';
import { endpointList } from '../shared/endpoint-list.js';
import { section } from '../shared/ui.js';
import { readCatalogue } from './catalogue.js';

/** @type {import('../shared/types.js').View<{}>} */
export async function portalHome(_params, ctx) {
  const endpoints = endpointList(ctx, {
    empty: ctx.canWrite ? 'No endpoints yet. Add one below to start receiving events.' : 'No endpoints yet.',
  });
  const [first, catalogue] = await Promise.all([
    endpoints.load(true),
    // The form still works without the catalogue (a text field): it is a convenience.
    ctx.canWrite ? readCatalogue().catch(() => undefined) : Promise.resolve(undefined),
  ]);
  ctx.poll(
    async () => {
      const shown = await endpoints.load(true);
      return shown && anyPending(shown);
    },
    anyPending(first ?? []),
  );

  return {
    title: 'Your webhook endpoints',
    node: h(
      'div',
      { class: 'stack' },
      section('Endpoints', ...endpoints.nodes),
      ctx.canWrite
        ? section('Add an endpoint', ...addEndpointForm({ added: () => endpoints.load(true), catalogue }))
        : h(
            'p',
            { class: 'callout callout-info' },
            'This session is read-only: you can look, but not change anything.',
          ),
    ),
  };
}
