// @ts-check
// An endpoint's operator actions: test event or re-enable, recover failed deliveries, rotate the
// secret, disable.
import { api, path } from './api.js';
import { h, replaceChildren } from './dom.js';
import { plural, toLocalInput } from './format.js';
import { actionButton, announce, field, secretPanel } from './ui.js';

/**
 * The actions of one endpoint page: `node` (redrawn by `render` when the endpoint changes) and
 * `output` (where a rotated secret is shown).
 * @param {import('./types.js').EndpointPage} page
 */
export function endpointActions(page) {
  const { id, ctx } = page;
  const output = h('div', { class: 'action-output' });
  const node = h('div', { class: 'action-grid' });

  // Inputs of the actions below: made once and keyed, so the polling redraw keeps their value and
  // the keyboard focus of whoever is typing in them.
  const since = h('input', {
    type: 'datetime-local',
    name: 'since',
    required: true,
    dataset: { key: 'since' },
  });
  since.value = toLocalInput(new Date(Date.now() - 86_400_000));
  const overlap = h(
    'select',
    { name: 'overlap', dataset: { key: 'overlap' } },
    h('option', { value: '0' }, 'None: the old secret stops now'),
    h('option', { value: '3600' }, '1 hour'),
    h('option', { value: '86400', selected: true }, '24 hours'),
    h('option', { value: '604800' }, '7 days'),
  );
  const reason = h('input', { type: 'text', name: 'reason', maxlength: '200', dataset: { key: 'reason' } });

  const enable = () =>
    actionButton(
      'Re-enable endpoint',
      async (idempotencyKey) => {
        /** @type {import('./types.js').Endpoint} */
        const enabled = await api('POST', path`/v1/webhook-endpoints/${id}/enable`, { idempotencyKey });
        page.shown.endpoint = { ...page.shown.endpoint, ...enabled };
        announce('Endpoint re-enabled.');
        await page.refresh();
      },
      { key: 'enable' },
    );

  const test = () =>
    actionButton(
      'Send test event',
      async (idempotencyKey) => {
        /** @type {{ id: string }} */
        const sent = await api('POST', path`/v1/webhook-endpoints/${id}/test`, { idempotencyKey });
        announce(`Test event ${sent.id} queued.`);
        await page.refresh();
        ctx.startPolling();
      },
      { key: 'test' },
    );

  const recover = () =>
    actionButton(
      'Recover',
      async (idempotencyKey) => {
        const date = new Date(since.value);
        if (!since.value || Number.isNaN(date.getTime()))
          throw new Error('Choose a date and time to recover from.');
        /** @type {{ requeued: number }} */
        const res = await api('POST', path`/v1/webhook-endpoints/${id}/recover`, {
          idempotencyKey,
          body: { since: date.toISOString() },
        });
        announce(`${plural(res.requeued, 'failed delivery', 'failed deliveries')} queued again.`);
        await page.refresh();
        ctx.startPolling();
      },
      { key: 'recover', tone: 'secondary' },
    );

  const rotate = () =>
    actionButton(
      'Rotate secret',
      async (idempotencyKey) => {
        const seconds = Number(overlap.value);
        /** @type {{ secret: string }} */
        const res = await api('POST', path`/v1/webhook-endpoints/${id}/rotate-secret`, {
          idempotencyKey,
          body: { overlapSeconds: seconds },
        });
        const until = seconds > 0 ? new Date(Date.now() + seconds * 1000).toISOString() : undefined;
        replaceChildren(output, secretPanel(res.secret, { overlapUntil: until }));
        announce('Secret rotated. Copy the new secret now: it is shown only once.');
      },
      { key: 'rotate', tone: 'secondary' },
    );

  const disable = () =>
    actionButton(
      'Disable endpoint',
      async (idempotencyKey) => {
        const why = reason.value.trim();
        await api('POST', path`/v1/webhook-endpoints/${id}/disable`, {
          idempotencyKey,
          ...(why ? { body: { reason: why } } : {}),
        });
        reason.value = '';
        announce('Endpoint disabled.');
        await page.refresh();
      },
      { key: 'disable', tone: 'secondary' },
    );

  function render() {
    const disabled = page.shown.endpoint.status === 'disabled';
    replaceChildren(
      node,
      h(
        'div',
        { class: 'action' },
        h('h3', {}, disabled ? 'Re-enable' : 'Send a test event'),
        disabled
          ? h('p', { class: 'hint' }, 'Deliveries resume; failed ones stay failed until recovered.')
          : h('p', { class: 'hint' }, 'Publishes a webhook.test event to this endpoint only.'),
        disabled ? enable() : test(),
      ),
      h(
        'div',
        { class: 'action' },
        h('h3', {}, 'Recover failed deliveries'),
        field('Failed since', since, 'Failed deliveries created since then are queued again.'),
        recover(),
      ),
      h(
        'div',
        { class: 'action' },
        h('h3', {}, 'Rotate the signing secret'),
        field('Old secret keeps verifying for', overlap),
        rotate(),
      ),
      disabled
        ? null
        : h(
            'div',
            { class: 'action' },
            h('h3', {}, 'Disable'),
            field(
              'Reason (optional)',
              reason,
              'Nothing is sent until it is re-enabled; queued deliveries are marked failed (recover them then).',
            ),
            disable(),
          ),
    );
  }

  return { node, output, render };
}
