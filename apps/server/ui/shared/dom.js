// @ts-check
// DOM helpers. Everything is built with createElement and text nodes, never innerHTML: response
// excerpts come from webhook receivers and payloads from API clients, so no text is ever parsed as markup.

/** @typedef {import('./types.js').Child} Child */
/** @typedef {import('./types.js').Props} Props */

/**
 * Creates an element. `props`: `class`, `dataset`, `on<event>` listeners, booleans as present/absent
 * attributes, anything else as an attribute. Children: nodes, strings, numbers, arrays; null is skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = String(value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/**
 * Replaces a node's children, keeping keyboard focus on the element with the same `data-key` if it had it.
 * @param {Element} el
 * @param {Child[]} children
 */
export function replaceChildren(el, ...children) {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && el.contains(active) ? active.dataset.key : undefined;
  el.replaceChildren();
  append(el, children);
  if (key) /** @type {HTMLElement | null} */ (el.querySelector(`[data-key="${CSS.escape(key)}"]`))?.focus();
}

// The one counter in the dashboard's modules: ids must be unique in the whole document, which every
// view shares, so it cannot belong to one view. Nothing reads it but this function.
let uid = 0;
/**
 * A unique id for label/aria wiring.
 * @param {string} prefix
 */
export const nextId = (prefix) => `${prefix}-${++uid}`;

/**
 * A label/value list: `[['Status', node], …]`, rows with a null value left out.
 * @param {Array<[string, Child]>} rows
 * @param {string} [className]
 */
export function facts(rows, className = 'facts') {
  return h(
    'dl',
    { class: className },
    rows
      .filter(([, value]) => value !== null && value !== undefined)
      .map(([term, value]) => h('div', { class: 'fact' }, h('dt', {}, term), h('dd', {}, value))),
  );
}

/** @typedef {{ attrs?: Props, cells: Child[] }} Row */

/**
 * A table that becomes a stack of cards at narrow widths: each cell carries its column name in
 * `data-label`, which the stylesheet shows in place of the header row.
 * @param {string} caption
 * @param {string[]} columns
 * @param {Row[]} rows
 * @param {{ className?: string, showCaption?: boolean }} [options]
 */
export function table(caption, columns, rows, options = {}) {
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: `table ${options.className ?? ''}` },
      h('caption', { class: options.showCaption ? 'caption' : 'visually-hidden' }, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            row.attrs ?? {},
            row.cells.map((cell, i) => h('td', { dataset: { label: columns[i] ?? '' } }, cell)),
          ),
        ),
      ),
    ),
  );
}

/**
 * A status pill: text plus a class for its colour; the text alone carries the meaning.
 * @param {string} text
 * @param {'ok' | 'warn' | 'bad' | 'neutral'} tone
 */
export const badge = (text, tone) => h('span', { class: `badge badge-${tone}` }, text);
