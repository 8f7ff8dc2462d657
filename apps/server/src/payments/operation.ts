import type { Sql } from '@surety/db';
import { type Flow, phasedOperation, type StoredResponse } from '@surety/idempotency';
import type { Webhooks } from '@surety/webhooks';
import { newId } from '@surety/webhooks/ids';
import { type PaymentRow, paymentData } from '../data/payments.js';
import { type ChargeResult, ProviderUnavailableError, type PspClient } from '../psp/client.js';
import { faultPoint } from './fault.js';

// POST /v1/payments as a phased operation (issue 32, docs/side-effects.md):
//   created   (local)    the payment row, `processing`, and payment.created, in one transaction;
//   charge    (external) the provider, with Idempotency-Key deriveKey(key, 'charge'), no transaction open;
//   settled   (local)    `succeeded` / `failed` with payment.succeeded / payment.failed, in one transaction.
// A retry with the same key, or the completer in the worker, resumes after the last committed phase.

export interface Payment {
  id: string;
  object: 'payment';
  amount: string;
  currency: string;
  customerId: string;
  status: 'processing' | 'succeeded' | 'failed';
  failureCode: string | null;
  createdAt: string;
}

export const toPayment = (r: PaymentRow): Payment => ({
  id: r.id,
  object: 'payment',
  amount: String(r.amount),
  currency: r.currency,
  customerId: r.customer_id,
  status: r.status,
  failureCode: r.failure_code ?? null,
  createdAt: new Date(r.created_at).toISOString(),
});

/** What the operation is run with; stored with the key (so, for the completer). */
export interface PaymentInput {
  tenant: string;
  amount: string;
  currency: string;
  customerId: string;
  paymentMethod: string;
}

export interface PaymentOperationOptions {
  schema: string;
  webhooks: Webhooks;
  psp: PspClient;
  /** How long a payment may stay processing for want of a definitive answer. */
  giveUpMs: number;
  now?: () => number;
}

type Charged = ChargeResult & { at: string };

export const PAYMENT_OPERATION = 'surety.payments.create';

/** The phased operation of POST /v1/payments. */
export function paymentOperation(options: PaymentOperationOptions) {
  const { webhooks, psp, giveUpMs } = options;
  const now = options.now ?? Date.now;
  const payments = paymentData(options.schema);
  const iso = () => new Date(now()).toISOString();
  const answer = (status: number, payment: Payment, extra: Partial<StoredResponse> = {}): StoredResponse => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', location: `/v1/payments/${payment.id}` },
    body: JSON.stringify(payment),
    ...extra,
  });

  return phasedOperation(PAYMENT_OPERATION, async (flow: Flow, input: PaymentInput) => {
    const created = await flow.local('created', async (tx) => {
      const id = newId('pay');
      const row = await payments.insert(tx, { ...input, id, createdAt: iso() });
      const payment = toPayment(row);
      await webhooks.publish(tx, {
        tenant: input.tenant,
        type: 'payment.created',
        data: payment,
        resource: `payment:${id}`,
      });
      return payment;
    });
    faultPoint('before-charge');
    let charged: Charged;
    try {
      charged = await flow.external('charge', async (derivedKey): Promise<Charged> => {
        try {
          const result = await psp.charge(
            {
              amount: input.amount,
              currency: input.currency,
              paymentMethod: input.paymentMethod,
              reference: created.id,
            },
            derivedKey,
          );
          faultPoint('after-charge');
          return { ...result, at: iso() };
        } catch (error) {
          // Unknown at the provider for too long: failed, so nothing stays processing for ever.
          if (error instanceof ProviderUnavailableError && now() - Date.parse(created.createdAt) >= giveUpMs)
            return { outcome: 'failed', code: 'provider_unavailable', chargeId: null, at: iso() };
          throw error;
        }
      });
    } catch (error) {
      if (!(error instanceof ProviderUnavailableError)) throw error;
      // No definitive answer yet: 202 `processing`, not stored; the client's retry with the same key
      // (or the completer) asks the provider again with the same derived key.
      return answer(202, created, {
        final: false,
        headers: { ...answer(202, created).headers, 'retry-after': '1' },
      });
    }
    const settled = await flow.local('settled', async (tx) => {
      const status = charged.outcome === 'succeeded' ? 'succeeded' : 'failed';
      const row = await payments.settle(tx, {
        tenant: input.tenant,
        id: created.id,
        status,
        failureCode: charged.outcome === 'failed' ? charged.code : null,
        chargeId: charged.chargeId,
        steps: [
          {
            step: 'charge',
            at: charged.at,
            detail: charged.outcome === 'succeeded' ? `charged ${charged.chargeId}` : charged.code,
          },
          { step: status, at: iso() },
        ],
      });
      if (!row) throw new Error(`payment ${created.id} was settled by someone else`);
      const payment = toPayment(row);
      await webhooks.publish(tx, {
        tenant: input.tenant,
        type: `payment.${status}`,
        data: payment,
        resource: `payment:${created.id}`,
      });
      return payment;
    });
    faultPoint('after-record');
    return answer(201, settled);
  });
}

export type PaymentOperation = ReturnType<typeof paymentOperation>;

/** The same steps without the idempotency layer (the benchmark's baseline: `idempotent: false`). */
export function directFlow(sql: Sql, tenant: string): Flow {
  const key = newId('direct');
  return {
    tenant,
    key,
    resumedFrom: undefined,
    done: () => false,
    local: (_name, run) => sql.transaction(run),
    external: (name, call) => call(`${key}:${name}`),
  };
}
