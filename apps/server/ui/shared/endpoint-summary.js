// @ts-check
// The top of an endpoint's page: its URL, why it is disabled or held by its breaker, health, facts.
import { facts, h, replaceChildren } from './dom.js';
import {
  circuitCallout,
  credentialsText,
  destinationText,
  kindBadge,
  rateBadge,
  statusBadge,
  throttleCallout,
} from './endpoint-badges.js';
import { ago, when } from './format.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */

/**
 * @param {string} label
 * @param {import('./types.js').Child} value
 */
const stat = (label, value) =>
  h(
    'div',
    { class: 'stat' },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value' }, value),
  );

/** The summary's element; `render` redraws it for a version of the endpoint. */
export function endpointSummary() {
  const node = h('div');
  /** @param {Endpoint} e */
  function render(e) {
    replaceChildren(
      node,
      h('p', { class: 'url lede' }, e.url, ' ', kindBadge(e)),
      destinationText(e) ? h('p', { class: 'muted' }, destinationText(e)) : null,
      e.status === 'disabled'
        ? h(
            'div',
            { class: 'callout callout-bad' },
            h('strong', {}, 'Disabled'),
            e.disabledAt ? ` ${ago(e.disabledAt)}` : '',
            `: ${e.disabledReason || 'by an operator'}. No deliveries are attempted until it is re-enabled.`,
          )
        : circuitCallout(e),
      e.status === 'disabled' ? null : throttleCallout(e),
      h(
        'div',
        { class: 'stats' },
        stat('Success rate (24 h)', rateBadge(e.health)),
        stat('Attempts (24 h)', String(e.health?.attempts24h ?? 0)),
        stat('Pending deliveries', String(e.health?.pendingDeliveries ?? 0)),
        stat('Last success', when(e.lastSuccessAt, 'never')),
        stat('Last failure', when(e.lastFailureAt, 'never')),
        stat('Failing since', when(e.failingSince, 'not failing')),
      ),
      h(
        'div',
        { class: 'panel' },
        facts([
          ['Status', statusBadge(e)],
          ['Event types', e.eventTypes.join(', ')],
          ['Filter', e.filter ? h('code', {}, JSON.stringify(e.filter)) : 'none: every event of its types'],
          ['Broker credentials', credentialsText(e)],
          ['Signature format', e.format === 'standard' ? 'Standard Webhooks' : 'Surety'],
          ['Endpoint id', h('code', {}, e.id)],
          ['Application', e.applicationId ? h('code', {}, e.applicationId) : null],
          ['Created', when(e.createdAt)],
        ]),
      ),
    );
  }
  return { node, render };
}
