// @ts-check
// The endpoint's editable settings. Built once (the page's polling never redraws it under the
// typist) and saved with If-Match on the version the form was filled from: a change made elsewhere
// since then is not overwritten; the form is refilled with it and says so.
import { apiWithETag, newIdempotencyKey, path, statusOf } from './api.js';
import { h } from './dom.js';
import { destinationFields, isBroker } from './endpoint-destination.js';
import { eventTypeList, TYPES_HINT } from './endpoint-fields.js';
import { actionButton, announce, field } from './ui.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */
/** @typedef {Pick<Endpoint, 'url' | 'eventTypes' | 'description' | 'rateLimit' | 'filter' | 'destination'>} Settings */

/** A filter as the form shows it: indented JSON, empty for none. */
const filterText = (/** @type {Settings['filter']} */ f) => (f ? JSON.stringify(f, null, 2) : '');

/**
 * A broker's settings compared key by key (the stored JSON may order its keys otherwise).
 * @param {Settings['destination'] | undefined} a
 * @param {Settings['destination'] | undefined} b
 */
const sameDestination = (a, b) => {
  const x = /** @type {Record<string, unknown>} */ (a ?? {});
  const y = /** @type {Record<string, unknown>} */ (b ?? {});
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  return [...keys].every((k) => x[k] === y[k]);
};

/**
 * @param {Settings} a
 * @param {Settings} b
 */
const sameSettings = (a, b) =>
  a.url === b.url &&
  sameDestination(a.destination, b.destination) &&
  a.eventTypes.join(',') === b.eventTypes.join(',') &&
  (a.description ?? '') === (b.description ?? '') &&
  (a.rateLimit ?? null) === (b.rateLimit ?? null) &&
  filterText(a.filter) === filterText(b.filter);

/**
 * The settings form of endpoint `id`, filled from `endpoint` (the version whose ETag is `etag`).
 * The version the form was filled from is this form's own; `saved` is told of every new one.
 * @param {{ id: string, endpoint: Endpoint, etag: string | null, saved: (e: Endpoint) => Promise<unknown> }} options
 */
export function settingsForm({ id, endpoint, etag, saved }) {
  // The URL (a broker's, for a broker endpoint) and the kind's settings; a poll endpoint has none.
  const where = destinationFields(endpoint.kind);
  const url = where.url;
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
  const filter = h('textarea', { name: 'filter', rows: '4', spellcheck: 'false', class: 'code' });
  let shown = endpoint;
  let shownETag = etag;
  /**
   * @param {Endpoint} e
   * @param {string | null} tag
   */
  const fill = (e, tag) => {
    shown = e;
    shownETag = tag;
    where.fill(e);
    types.value = e.eventTypes.join(', ');
    description.value = e.description ?? '';
    rateLimit.value = e.rateLimit === null || e.rateLimit === undefined ? '' : String(e.rateLimit);
    filter.value = filterText(e.filter);
  };
  fill(endpoint, etag);

  /** What the form changes, as a JSON merge patch; throws for a value the API would refuse. */
  const changes = () => {
    /** @type {Partial<Settings>} */
    const patch = {};
    if (shown.kind !== 'poll' && url.value.trim() !== shown.url) patch.url = url.value.trim();
    const destination = where.destination();
    if (isBroker(shown.kind) && !sameDestination(destination, shown.destination))
      patch.destination = /** @type {Settings['destination']} */ (destination);
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
    const text = filter.value.trim();
    /** @type {Settings['filter']} */
    let wanted = null;
    if (text !== '') {
      try {
        wanted = JSON.parse(text);
      } catch {
        throw new Error('The filter is not JSON: write an object such as {"data.amount": {"$gte": 100}}.');
      }
    }
    if (filterText(wanted) !== filterText(shown.filter)) patch.filter = wanted;
    return patch;
  };

  /** @param {string} idempotencyKey */
  async function save(idempotencyKey) {
    const body = changes();
    if (Object.keys(body).length === 0) {
      announce('Nothing to save: the settings are as they were.');
      return;
    }
    /**
     * @param {string | null} ifMatch
     * @param {string} key
     * @returns {Promise<{ data: Endpoint, etag: string | null }>}
     */
    const patch = (ifMatch, key) =>
      apiWithETag('PATCH', path`/v1/webhook-endpoints/${id}`, {
        idempotencyKey: key,
        ...(ifMatch ? { ifMatch } : {}),
        body,
      });
    let answer;
    where.clearErrors();
    try {
      answer = await patch(shownETag, idempotencyKey);
    } catch (error) {
      where.showErrors(error)?.focus();
      if (statusOf(error) !== 412) throw error;
      /** @type {{ data: Endpoint, etag: string | null }} */
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
  }

  const form = h(
    'form',
    { class: 'form', novalidate: true },
    where.nodes,
    field('Event types', types, TYPES_HINT),
    field('Description', description),
    field('Rate limit (deliveries per second)', rateLimit, 'Empty: no limit.'),
    field(
      'Filter (JSON)',
      filter,
      'Only events matching it are delivered, e.g. {"data.amount": {"$gte": 100}}. Empty: every event of its types.',
    ),
  );
  form.append(h('div', { class: 'actions' }, actionButton('Save changes', save, { key: 'save' })));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    /** @type {HTMLElement | null} */ (form.querySelector('[data-key="save"]'))?.click();
  });
  return form;
}
