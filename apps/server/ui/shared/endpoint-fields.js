// @ts-check
// What the add form and the settings form share.

export const URL_HINT = 'Where events are sent (POST). It must be reachable from the service.';
export const TYPES_HINT = 'Comma separated, e.g. order.shipped, payment.created; * for all.';

/**
 * "a.b, c.d" → ['a.b', 'c.d'], blanks left out.
 * @param {string} text
 */
export const eventTypeList = (text) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
