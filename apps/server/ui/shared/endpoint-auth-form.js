// @ts-check
// The endpoint's receiver authentication (docs/receiver-auth.md), in the dashboard and the portal:
// what is set, as the API shows it (never a password, client secret or key), and a form that
// replaces it, saved on its own with If-Match on the version shown. Secrets typed here are sent once
// and never shown again.
import { apiWithETag, path, statusOf } from './api.js';
import { h } from './dom.js';
import { actionButton, announce, field } from './ui.js';

/** @typedef {import('./types.js').Endpoint} Endpoint */

/** What is set now, in words. @param {Endpoint['auth']} a */
export const authSummary = (a) =>
  !a
    ? 'None: the receiver authenticates deliveries by their signature only.'
    : a.type === 'basic'
      ? `Basic, user ${a.username}.`
      : a.type === 'oauth2'
        ? `OAuth2 client credentials: client ${a.clientId} at ${a.tokenUrl}.`
        : `mTLS client certificate ${a.subject} (SHA-256 ${a.certificateFingerprint}), valid until ${a.notAfter}.`;

/**
 * The receiver-authentication form of the endpoint `page` shows; `saved` is told of the new version.
 * @param {{ page: import('./types.js').EndpointPage, saved: () => Promise<unknown> }} options
 */
export function authForm({ page, saved }) {
  const now = h('p', { class: 'hint' }, authSummary(page.shown.endpoint.auth));
  const type = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { name: 'authType' },
      h('option', { value: '' }, 'None'),
      h('option', { value: 'basic' }, 'Basic (username and password)'),
      h('option', { value: 'oauth2' }, 'OAuth2 client credentials'),
      h('option', { value: 'mtls' }, 'mTLS client certificate'),
    )
  );
  /** @param {string} name @param {string} [kind] */
  const input = (name, kind = 'text') =>
    /** @type {HTMLInputElement} */ (h('input', { type: kind, name, autocomplete: 'off' }));
  /** @param {string} name */
  const pem = (name) =>
    /** @type {HTMLTextAreaElement} */ (
      h('textarea', { name, rows: '4', spellcheck: 'false', class: 'code' })
    );
  const f = {
    username: input('username'),
    password: input('password', 'password'),
    tokenUrl: input('tokenUrl', 'url'),
    clientId: input('clientId'),
    clientSecret: input('clientSecret', 'password'),
    scope: input('scope'),
    audience: input('audience'),
    certificate: pem('certificate'),
    privateKey: pem('privateKey'),
    ca: pem('ca'),
  };
  const groups = {
    basic: h('div', {}, field('Username', f.username), field('Password', f.password)),
    oauth2: h(
      'div',
      {},
      field('Token URL', f.tokenUrl, 'https; checked like the endpoint URL.'),
      field('Client ID', f.clientId),
      field('Client secret', f.clientSecret),
      field('Scope', f.scope, 'Optional.'),
      field('Audience', f.audience, 'Optional.'),
    ),
    mtls: h(
      'div',
      {},
      field('Certificate (PEM)', f.certificate, 'The client certificate first, then any intermediates.'),
      field('Private key (PEM)', f.privateKey, 'Unencrypted; it must match the certificate.'),
      field('CA (PEM)', f.ca, "Optional: the CA the receiver's server certificate chains to."),
    ),
  };
  const show = () => {
    for (const [k, g] of Object.entries(groups)) g.hidden = type.value !== k;
  };
  type.addEventListener('change', show);
  show();

  /** The auth the form describes; null for none. */
  const wanted = () => {
    const v = (/** @type {HTMLInputElement | HTMLTextAreaElement} */ el) => el.value.trim();
    switch (type.value) {
      case 'basic':
        return { type: 'basic', username: v(f.username), password: f.password.value };
      case 'oauth2':
        return {
          type: 'oauth2',
          tokenUrl: v(f.tokenUrl),
          clientId: v(f.clientId),
          clientSecret: f.clientSecret.value,
          ...(v(f.scope) ? { scope: v(f.scope) } : {}),
          ...(v(f.audience) ? { audience: v(f.audience) } : {}),
        };
      case 'mtls':
        return {
          type: 'mtls',
          certificate: v(f.certificate),
          privateKey: v(f.privateKey),
          ...(v(f.ca) ? { ca: v(f.ca) } : {}),
        };
      default:
        return null;
    }
  };

  /** @param {string} idempotencyKey */
  async function save(idempotencyKey) {
    const { etag } = page.shown;
    try {
      await apiWithETag('PATCH', path`/v1/webhook-endpoints/${page.id}`, {
        idempotencyKey,
        ...(etag ? { ifMatch: etag } : {}),
        body: { auth: wanted() },
      });
    } catch (error) {
      if (statusOf(error) !== 412) throw error;
      await saved();
      throw new Error('This endpoint was changed elsewhere meanwhile, and nothing was saved: save again.');
    }
    // Secrets are not kept in the page once sent.
    for (const el of Object.values(f)) el.value = '';
    await saved();
    now.textContent = authSummary(page.shown.endpoint.auth);
    announce('Receiver authentication updated.');
  }

  const form = h(
    'form',
    { class: 'form', novalidate: true, autocomplete: 'off' },
    now,
    field('Replace with', type, 'Replaces whatever is set; deliveries already sent finish with the old one.'),
    groups.basic,
    groups.oauth2,
    groups.mtls,
  );
  form.append(
    h('div', { class: 'actions' }, actionButton('Save authentication', save, { key: 'save-auth' })),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    /** @type {HTMLElement | null} */ (form.querySelector('[data-key="save-auth"]'))?.click();
  });
  return form;
}
