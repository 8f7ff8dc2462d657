// @ts-check
// "Delete this endpoint": asks first, then deletes with If-Match on the version shown, so it cannot
// remove an endpoint that changed since the page showed it.
import { apiWithETag, path, statusOf } from './api.js';
import { h, replaceChildren } from './dom.js';
import { actionButton } from './ui.js';

/** @param {import('./types.js').EndpointPage} page */
export function endpointDelete(page) {
  const { id, ctx } = page;
  const node = h('div', { class: 'danger-zone' });

  /** @param {boolean} confirming */
  function render(confirming) {
    replaceChildren(
      node,
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
                const { etag } = page.shown;
                // Never unconditional: without the version shown, nothing says what is being deleted.
                if (!etag) throw new Error('The service sent no version of this endpoint: reload the page.');
                try {
                  await apiWithETag('DELETE', path`/v1/webhook-endpoints/${id}`, { ifMatch: etag });
                } catch (error) {
                  if (statusOf(error) !== 412) throw error;
                  await page.refresh();
                  render(false);
                  throw new Error(
                    'This endpoint was changed elsewhere after this page showed it, and was not deleted. ' +
                      'The page now shows its current state.',
                  );
                }
                const { endpoint } = page.shown;
                ctx.navigate('#/', `Endpoint ${endpoint.description || endpoint.id} deleted.`);
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
                  render(false);
                  node.querySelector('button')?.focus();
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
                render(true);
                /** @type {HTMLElement | null} */ (
                  node.querySelector('[data-key="delete-confirm"]')
                )?.focus();
              },
              { tone: 'secondary', key: 'delete' },
            ),
          ),
    );
  }

  render(false);
  return node;
}
