// The endpoints overview (with recent events) and one endpoint: health, actions, deliveries.
import { api, apiWithETag, newIdempotencyKey, path } from './api.js';
import { badge, facts, h, replaceChildren, table } from './dom.js';
import { recentEvents } from './events.js';
import { ago, plural, rate, rateTone, toLocalInput, when } from './format.js';
import {
  actionButton,
  announce,
  announceNext,
  deliveryBadge,
  field,
  moreButton,
  secretPanel,
  section,
} from './ui.js';

// What the add form and the settings form share.
const URL_HINT = 'Where Surety POSTs events. It must be reachable from the service.';
const TYPES_HINT = 'Comma separated, e.g. order.shipped, payment.created; * for all.';
const eventTypeList = (text) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

const statusBadge = (e) => (e.status === 'enabled' ? badge('Enabled', 'ok') : badge('Disabled', 'bad'));

/** The circuit breaker, when it is not closed: open (waiting for its probe) or half open (probing). */
const circuitBadge = (e) =>
  !e.circuit || e.circuit.state === 'closed'
    ? null
    : badge(e.circuit.state === 'open' ? 'Circuit open' : 'Probing', 'warn');

/** What an open breaker means for the endpoint's deliveries, in words. */
function circuitCallout(e) {
  if (!e.circuit || e.circuit.state === 'closed') return null;
  const c = e.circuit;
  return h(
    'div',
    { class: 'callout callout-warn', dataset: { circuit: c.state } },
    h('strong', {}, 'Circuit breaker open'),
    c.openedAt ? ` ${ago(c.openedAt)}` : '',
    ` after ${plural(c.consecutiveFailures, 'failed attempt')} in a row. Pending deliveries wait for one probe attempt (`,
    c.state === 'open' ? h('span', {}, 'next ', when(c.nextProbeAt)) : 'in progress',
    '); when it succeeds they all go out. Waiting spends none of their attempts.',
  );
}

/** Success rate as a badge with its tone; the word carries the meaning, not the colour. */
const rateBadge = (health) => badge(rate(health?.successRate24h), rateTone(health?.successRate24h));

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
        e.description || e.url,
      ),
      statusBadge(e),
      circuitBadge(e),
    ),
    e.description ? h('p', { class: 'muted url' }, e.url) : null,
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

/** `#/`: every endpoint with its health, a form to add one, and the latest events. */
export async function overview(_params, ctx) {
  const list = h('ul', { class: 'cards' });
  const more = h('div');
  const created = h('div');
  let cursor = null;

  async function load(reset) {
    const page = await api(
      'GET',
      `/v1/webhook-endpoints?limit=20${!reset && cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    // The list has no health: each endpoint's own answer carries it (20 small reads, in parallel).
    const detailed = await Promise.all(
      page.data.map((e) => api('GET', path`/v1/webhook-endpoints/${e.id}`).catch(() => e)),
    );
    if (!ctx.alive()) return;
    cursor = page.nextCursor;
    const cards = detailed.map(endpointCard);
    if (reset) replaceChildren(list, cards);
    else list.append(...cards);
    if (reset && detailed.length === 0) {
      list.append(
        h('li', { class: 'empty' }, 'No webhook endpoints yet. Add one below to start receiving events.'),
      );
    }
    replaceChildren(
      more,
      page.hasMore ? moreButton('Show more endpoints', () => load(false).catch(ctx.fail)) : null,
    );
    return detailed;
  }

  const first = await load(true);
  ctx.poll(
    async () => {
      const shown = await load(true);
      return shown?.some((e) => (e.health?.pendingDeliveries ?? 0) > 0);
    },
    first.some((e) => (e.health?.pendingDeliveries ?? 0) > 0),
  );

  const url = h('input', {
    type: 'url',
    name: 'url',
    required: true,
    placeholder: 'https://example.com/hooks',
  });
  const types = h('input', { type: 'text', name: 'eventTypes', value: '*', required: true });
  const description = h('input', { type: 'text', name: 'description', maxlength: '500' });
  const addForm = h(
    'form',
    { class: 'form', novalidate: true },
    field('URL', url, URL_HINT),
    field('Event types', types, TYPES_HINT),
    field('Description (optional)', description),
  );
  addForm.append(
    h(
      'div',
      { class: 'actions' },
      actionButton('Add endpoint', async (idempotencyKey) => {
        const eventTypes = eventTypeList(types.value);
        const endpoint = await api('POST', '/v1/webhook-endpoints', {
          idempotencyKey,
          body: {
            url: url.value.trim(),
            eventTypes,
            ...(description.value.trim() ? { description: description.value.trim() } : {}),
          },
        });
        addForm.reset();
        types.value = '*';
        announce(`Endpoint ${endpoint.id} added.`);
        replaceChildren(created, secretPanel(endpoint.secret));
        await load(true);
      }),
    ),
  );
  addForm.addEventListener('submit', (event) => {
    event.preventDefault();
    addForm.querySelector('button')?.click();
  });

  return {
    title: 'Webhook endpoints',
    node: h(
      'div',
      { class: 'stack' },
      section('Endpoints', list, more),
      section('Recent events', await recentEvents(ctx, 8)),
      section(
        'Add an endpoint',
        created,
        h('details', { class: 'disclosure' }, h('summary', {}, 'New endpoint'), addForm),
      ),
    ),
  };
}

function deliveryRows(deliveries) {
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
      d.lastStatus ? `HTTP ${d.lastStatus}` : d.lastError ? 'error' : '—',
      d.lastError ? h('span', { class: 'error-text' }, d.lastError) : '—',
      when(d.createdAt),
    ],
  }));
}

/** `#/endpoints/:id`: health, the operator's actions, and the endpoint's deliveries. */
export async function endpointView({ id }, ctx) {
  // The ETag of the version shown: a delete carries it (If-Match), so it cannot remove an endpoint
  // that changed since it was last shown.
  let { data: endpoint, etag } = await apiWithETag('GET', path`/v1/webhook-endpoints/${id}`);
  const summary = h('div');
  const actionsOut = h('div', { class: 'action-output' });
  const deliveries = h('div');
  const filter = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'All'),
    h('option', { value: 'failed' }, 'Failed'),
    h('option', { value: 'pending' }, 'Pending'),
    h('option', { value: 'delivered' }, 'Delivered'),
  );
  let rows = [];
  let cursor = null;

  function renderSummary() {
    const e = endpoint;
    replaceChildren(
      summary,
      h('p', { class: 'url lede' }, e.url),
      e.status === 'disabled'
        ? h(
            'div',
            { class: 'callout callout-bad' },
            h('strong', {}, 'Disabled'),
            e.disabledAt ? ` ${ago(e.disabledAt)}` : '',
            `: ${e.disabledReason || 'by an operator'}. No deliveries are attempted until it is re-enabled.`,
          )
        : circuitCallout(e),
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
          ['Signature format', e.format === 'standard' ? 'Standard Webhooks' : 'Surety'],
          ['Endpoint id', h('code', {}, e.id)],
          ['Created', when(e.createdAt)],
        ]),
      ),
    );
  }

  async function loadDeliveries(reset) {
    const q = new URLSearchParams({ limit: '20' });
    if (filter.value) q.set('status', filter.value);
    if (!reset && cursor) q.set('cursor', cursor);
    const page = await api('GET', `${path`/v1/webhook-endpoints/${id}/deliveries`}?${q}`);
    if (!ctx.alive()) return;
    rows = reset ? page.data : rows.concat(page.data);
    cursor = page.nextCursor;
    replaceChildren(
      deliveries,
      rows.length === 0
        ? h('p', { class: 'empty' }, filter.value ? `No ${filter.value} deliveries.` : 'No deliveries yet.')
        : table(
            'Deliveries, newest first',
            ['Event', 'Status', 'Attempts', 'Last answer', 'Last error', 'Created'],
            deliveryRows(rows),
          ),
      page.hasMore ? moreButton('Show more deliveries', () => loadDeliveries(false).catch(ctx.fail)) : null,
    );
  }

  async function refresh() {
    ({ data: endpoint, etag } = await apiWithETag('GET', path`/v1/webhook-endpoints/${id}`));
    if (!ctx.alive()) return false;
    renderSummary();
    renderActions();
    await loadDeliveries(true);
    return endpoint.health.pendingDeliveries > 0;
  }

  filter.addEventListener('change', () => loadDeliveries(true).catch(ctx.fail));

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
  const actions = h('div', { class: 'action-grid' });

  function renderActions() {
    const disabled = endpoint.status === 'disabled';
    replaceChildren(
      actions,
      h(
        'div',
        { class: 'action' },
        h('h3', {}, disabled ? 'Re-enable' : 'Send a test event'),
        disabled
          ? h('p', { class: 'hint' }, 'Deliveries resume; failed ones stay failed until recovered.')
          : h('p', { class: 'hint' }, 'Publishes a webhook.test event to this endpoint only.'),
        disabled
          ? actionButton(
              'Re-enable endpoint',
              async (idempotencyKey) => {
                endpoint = {
                  ...endpoint,
                  ...(await api('POST', path`/v1/webhook-endpoints/${id}/enable`, { idempotencyKey })),
                };
                announce('Endpoint re-enabled.');
                await refresh();
              },
              { key: 'enable' },
            )
          : actionButton(
              'Send test event',
              async (idempotencyKey) => {
                const sent = await api('POST', path`/v1/webhook-endpoints/${id}/test`, { idempotencyKey });
                announce(`Test event ${sent.id} queued.`);
                await refresh();
                ctx.startPolling();
              },
              { key: 'test' },
            ),
      ),
      h(
        'div',
        { class: 'action' },
        h('h3', {}, 'Recover failed deliveries'),
        field('Failed since', since, 'Failed deliveries created since then are queued again.'),
        actionButton(
          'Recover',
          async (idempotencyKey) => {
            const date = new Date(since.value);
            if (!since.value || Number.isNaN(date.getTime()))
              throw new Error('Choose a date and time to recover from.');
            const res = await api('POST', path`/v1/webhook-endpoints/${id}/recover`, {
              idempotencyKey,
              body: { since: date.toISOString() },
            });
            announce(`${plural(res.requeued, 'failed delivery', 'failed deliveries')} queued again.`);
            await refresh();
            ctx.startPolling();
          },
          { key: 'recover', tone: 'secondary' },
        ),
      ),
      h(
        'div',
        { class: 'action' },
        h('h3', {}, 'Rotate the signing secret'),
        field('Old secret keeps verifying for', overlap),
        actionButton(
          'Rotate secret',
          async (idempotencyKey) => {
            const seconds = Number(overlap.value);
            const res = await api('POST', path`/v1/webhook-endpoints/${id}/rotate-secret`, {
              idempotencyKey,
              body: { overlapSeconds: seconds },
            });
            const until = seconds > 0 ? new Date(Date.now() + seconds * 1000).toISOString() : undefined;
            replaceChildren(actionsOut, secretPanel(res.secret, { overlapUntil: until }));
            announce('Secret rotated. Copy the new secret now: it is shown only once.');
          },
          { key: 'rotate', tone: 'secondary' },
        ),
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
                await refresh();
              },
              { key: 'disable', tone: 'secondary' },
            ),
          ),
    );
  }

  renderSummary();
  renderActions();
  const settings = settingsForm(id, endpoint, etag, async (saved) => {
    const title = document.getElementById('page-title');
    if (title) title.textContent = saved.description || 'Webhook endpoint';
    await refresh();
  });
  const danger = h('div', { class: 'danger-zone' });
  function renderDanger(confirming) {
    replaceChildren(
      danger,
      h(
        'p',
        { class: 'hint' },
        'Deleting stops every delivery to this endpoint at once: pending ones are marked failed. Its ' +
          'secret stops being used. This cannot be undone.',
      ),
      confirming
        ? h(
            'div',
            { class: 'actions', role: 'group', 'aria-label': 'Confirm deletion' },
            actionButton(
              'Delete permanently',
              async () => {
                // Never unconditional: without the version shown, nothing says what is being deleted.
                if (!etag) throw new Error('The service sent no version of this endpoint: reload the page.');
                try {
                  await apiWithETag('DELETE', path`/v1/webhook-endpoints/${id}`, { ifMatch: etag });
                } catch (error) {
                  if (error?.status !== 412) throw error;
                  await refresh();
                  renderDanger(false);
                  throw new Error(
                    'This endpoint was changed elsewhere after this page showed it, and was not deleted. ' +
                      'The page now shows its current state.',
                  );
                }
                announceNext(`Endpoint ${endpoint.description || endpoint.id} deleted.`);
                location.hash = '#/';
              },
              { tone: 'danger', key: 'delete-confirm' },
            ),
            h(
              'button',
              {
                type: 'button',
                class: 'btn btn-quiet',
                dataset: { key: 'delete-cancel' },
                onclick: () => {
                  renderDanger(false);
                  danger.querySelector('button')?.focus();
                },
              },
              'Cancel',
            ),
          )
        : h(
            'div',
            { class: 'actions' },
            actionButton(
              'Delete endpoint…',
              async () => {
                renderDanger(true);
                danger.querySelector('[data-key="delete-confirm"]')?.focus();
              },
              { tone: 'secondary', key: 'delete' },
            ),
          ),
    );
  }
  renderDanger(false);
  await loadDeliveries(true);
  ctx.poll(refresh, endpoint.health.pendingDeliveries > 0);

  return {
    title: endpoint.description || 'Webhook endpoint',
    crumbs: [['Endpoints', '#/']],
    node: h(
      'div',
      { class: 'stack' },
      summary,
      section('Actions', actions, actionsOut),
      section('Deliveries', h('div', { class: 'toolbar' }, field('Show', filter)), deliveries),
      section('Settings', settings),
      section('Delete this endpoint', danger),
    ),
  };
}

/**
 * The endpoint's editable settings. Built once (the page's polling never redraws it under the
 * typist) and saved with If-Match on the version the form was filled from: a change made elsewhere
 * since then is not overwritten; the form is refilled with it and says so.
 */
function settingsForm(id, endpoint, etag, saved) {
  const url = h('input', { type: 'url', name: 'url', required: true });
  const types = h('input', { type: 'text', name: 'eventTypes', required: true });
  const description = h('input', { type: 'text', name: 'description', maxlength: '500' });
  const rateLimit = h('input', {
    type: 'number',
    name: 'rateLimit',
    min: '1',
    max: '10000',
    step: '1',
    inputmode: 'numeric',
  });
  let shown;
  let shownETag;
  const fill = (e, tag) => {
    shown = e;
    shownETag = tag;
    url.value = e.url;
    types.value = e.eventTypes.join(', ');
    description.value = e.description ?? '';
    rateLimit.value = e.rateLimit === null || e.rateLimit === undefined ? '' : String(e.rateLimit);
  };
  fill(endpoint, etag);

  /** What the form changes, as a JSON merge patch; throws for a value the API would refuse. */
  const changes = () => {
    const patch = {};
    if (url.value.trim() !== shown.url) patch.url = url.value.trim();
    const eventTypes = eventTypeList(types.value);
    if (eventTypes.length === 0) throw new Error('Name at least one event type, or * for all.');
    if (eventTypes.join(',') !== shown.eventTypes.join(',')) patch.eventTypes = eventTypes;
    if (description.value.trim() !== (shown.description ?? '')) patch.description = description.value.trim();
    const rate = rateLimit.value.trim();
    const limit = rate === '' ? null : Number(rate);
    if (limit !== null && !(Number.isInteger(limit) && limit >= 1 && limit <= 10_000)) {
      throw new Error(
        'The rate limit is a whole number of deliveries per second from 1 to 10,000, or empty for none.',
      );
    }
    if (limit !== (shown.rateLimit ?? null)) patch.rateLimit = limit;
    return patch;
  };

  const sameSettings = (a, b) =>
    a.url === b.url &&
    a.eventTypes.join(',') === b.eventTypes.join(',') &&
    (a.description ?? '') === (b.description ?? '') &&
    (a.rateLimit ?? null) === (b.rateLimit ?? null);

  const form = h(
    'form',
    { class: 'form', novalidate: true },
    field('URL', url, URL_HINT),
    field('Event types', types, TYPES_HINT),
    field('Description', description),
    field('Rate limit (deliveries per second)', rateLimit, 'Empty: no limit.'),
  );
  form.append(
    h(
      'div',
      { class: 'actions' },
      actionButton(
        'Save changes',
        async (idempotencyKey) => {
          const body = changes();
          if (Object.keys(body).length === 0) {
            announce('Nothing to save: the settings are as they were.');
            return;
          }
          const patch = (ifMatch, key) =>
            apiWithETag('PATCH', path`/v1/webhook-endpoints/${id}`, { idempotencyKey: key, ifMatch, body });
          let answer;
          try {
            answer = await patch(shownETag, idempotencyKey);
          } catch (error) {
            if (error?.status !== 412) throw error;
            const current = await apiWithETag('GET', path`/v1/webhook-endpoints/${id}`);
            if (!sameSettings(current.data, shown)) {
              fill(current.data, current.etag);
              await saved(current.data);
              throw new Error(
                'This endpoint was changed elsewhere after the form was filled in, and nothing was saved. ' +
                  'The form now shows the current settings: make your change again.',
              );
            }
            // A new version with the settings the form was filled from (this page's own disable,
            // enable or rotation made it): the edit still applies, so it is sent again on that
            // version, with a key of its own (the first one answered 412).
            answer = await patch(current.etag, newIdempotencyKey());
          }
          fill(answer.data, answer.etag);
          announce('Endpoint updated.');
          await saved(answer.data);
        },
        { key: 'save' },
      ),
    ),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    form.querySelector('[data-key="save"]')?.click();
  });
  return form;
}

const stat = (label, value) =>
  h(
    'div',
    { class: 'stat' },
    h('div', { class: 'stat-label' }, label),
    h('div', { class: 'stat-value' }, value),
  );
