// @ts-check
// `#/payments`: the latest payments; `#/payments/{id}`: one payment's steps (created, the charge at
// the provider, succeeded / failed). Both say plainly when the provider is the simulated one.
import { api, path } from '../shared/api.js';
import { badge, facts, h, table } from '../shared/dom.js';
import { exact, when } from '../shared/format.js';
import { section } from '../shared/ui.js';

/**
 * @typedef {{ id: string, amount: string, currency: string, customerId: string,
 *   status: 'processing' | 'succeeded' | 'failed', failureCode: string | null, createdAt: string }} Payment
 * @typedef {{ step: string, at: string, detail?: string }} Step
 */

/** @param {Payment['status']} status */
const statusBadge = (status) =>
  badge(status, status === 'succeeded' ? 'ok' : status === 'failed' ? 'bad' : 'warn');

/** @param {string} provider */
const providerNote = (provider) =>
  provider === 'simulated'
    ? h(
        'p',
        { class: 'notice', dataset: { provider: 'simulated' } },
        badge('Simulated provider', 'warn'),
        ' Payments are charged by the simulated payment provider (SURETY_PSP_URL is unset): no real money moves.',
      )
    : null;

/** @param {Payment} p */
const amountOf = (p) => `${p.amount} ${p.currency}`;

/** `#/payments`. @type {import('../shared/types.js').View<{}>} */
export async function paymentsView(_params, ctx) {
  /** @type {{ data: Payment[], hasMore: boolean, provider: string }} */
  const page = await api('GET', '/v1/payments?limit=50');
  if (!ctx.alive()) return { title: 'Payments', node: h('div') };
  const rows = page.data.map((p) => ({
    cells: [
      h(
        'a',
        { href: `#/payments/${p.id}`, dataset: { key: `pay-${p.id}` } },
        h('code', { class: 'id' }, p.id),
      ),
      amountOf(p),
      statusBadge(p.status),
      p.failureCode ? h('code', {}, p.failureCode) : '—',
      when(p.createdAt),
    ],
  }));
  return {
    title: 'Payments',
    node: h(
      'div',
      { class: 'stack' },
      providerNote(page.provider),
      section(
        'Latest payments',
        rows.length === 0
          ? h('p', { class: 'empty' }, 'No payments yet.')
          : table('Payments, newest first', ['Payment', 'Amount', 'Status', 'Failure', 'Created'], rows),
      ),
    ),
  };
}

/** `#/payments/{id}`. @type {import('../shared/types.js').View<{ id: string }>} */
export async function paymentView({ id }, ctx) {
  const [payment, steps] = /** @type {[Payment, { data: Step[], provider: string }]} */ (
    await Promise.all([api('GET', path`/v1/payments/${id}`), api('GET', path`/v1/payments/${id}/steps`)])
  );
  if (!ctx.alive()) return { title: id, node: h('div') };
  ctx.poll(async () => {
    /** @type {Payment} */
    const now = await api('GET', path`/v1/payments/${id}`);
    if (now.status !== payment.status) ctx.navigate(`#/payments/${id}`);
    return now.status === 'processing';
  }, payment.status === 'processing');
  const stepRows = steps.data.map((s) => ({
    attrs: { dataset: { step: s.step } },
    cells: [h('strong', {}, s.step), s.detail ? h('code', {}, s.detail) : '—', exact(s.at)],
  }));
  return {
    title: `Payment ${payment.id}`,
    crumbs: [['Payments', '#/payments']],
    node: h(
      'div',
      { class: 'stack' },
      providerNote(steps.provider),
      section(
        'Payment',
        facts([
          ['Status', statusBadge(payment.status)],
          ['Amount', amountOf(payment)],
          ['Customer', h('code', {}, payment.customerId)],
          ['Failure', payment.failureCode ? h('code', {}, payment.failureCode) : null],
          [
            'Provider',
            steps.provider === 'simulated' ? 'simulated (no real money)' : 'external (SURETY_PSP_URL)',
          ],
          ['Created', exact(payment.createdAt)],
        ]),
      ),
      section(
        'Steps',
        table("The payment's steps, oldest first", ['Step', 'Detail', 'At'], stepRows, { showCaption: true }),
      ),
    ),
  };
}
