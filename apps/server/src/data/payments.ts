/**
 * The SQL of payments: each statement a typed function with object parameters, every value bound,
 * the schema escaped once (`paymentData(schema)`). The routes call these; no SQL lives in a route.
 */
import { cursorTimestampSql, keysetCursor, type Queryable, quoteSchema } from '@surety/db';

/**
 * Payments are listed newest first, by (created_at, id). The cursor's time is the row's created_at to
 * the microsecond (`PaymentListRow.created_at_us`), not the response's createdAt (milliseconds):
 * a cursor cut to the millisecond skips the rows of that millisecond after the page's last one.
 */
export const PAYMENTS_BY_TIME = keysetCursor('timestamp', 'text');

/** A payment row as the statements return it (amount as text: it may exceed 2^53). */
export interface PaymentRow {
  id: string;
  amount: string;
  currency: string;
  customer_id: string;
  status: 'processing' | 'succeeded' | 'failed';
  failure_code: string | null;
  created_at: Date;
}

/** One step of a payment's life (`steps`), for the dashboard. */
export interface PaymentStep {
  step: string;
  at: string;
  detail?: string;
}

/** A row of the list: also its created_at exact, as the cursor carries it. */
export interface PaymentListRow extends PaymentRow {
  created_at_us: string;
}

const COLUMNS = 'id, amount::text, currency, customer_id, status, failure_code, created_at';

/** The payment statements of one schema. */
export function paymentData(schema: string) {
  const t = `${quoteSchema(schema)}.payments`;
  // Named: planned once per connection (the insert is the benchmarked hot path).
  const insert = {
    name: `surety_payment_insert_${schema}`,
    text: `insert into ${t} (tenant, id, amount, currency, customer_id, status, created_at, steps)
           values ($1, $2, $3, $4, $5, 'processing', $6::timestamptz,
                   jsonb_build_array(jsonb_build_object('step', 'created', 'at', $7::text))) returning ${COLUMNS}`,
  };
  // Only a processing payment settles, once: a second settle matches nothing.
  const settle = {
    name: `surety_payment_settle_${schema}`,
    text: `update ${t} set status = $3, failure_code = $4, charge_id = $5,
                  steps = coalesce(steps, '[]'::jsonb) || $6::text::jsonb
            where tenant = $1 and id = $2 and status = 'processing' returning ${COLUMNS}`,
  };
  const byId = {
    name: `surety_payment_get_${schema}`,
    text: `select ${COLUMNS} from ${t} where tenant = $1 and id = $2`,
  };
  return {
    /**
     * Settles a processing payment (`succeeded` or `failed`), appending `steps`; undefined when it
     * is not processing (settled already).
     */
    async settle(
      q: Queryable,
      p: {
        tenant: string;
        id: string;
        status: 'succeeded' | 'failed';
        failureCode: string | null;
        chargeId: string | null;
        steps: PaymentStep[];
      },
    ): Promise<PaymentRow | undefined> {
      const { rows } = await q.query<PaymentRow>(settle, [
        p.tenant,
        p.id,
        p.status,
        p.failureCode,
        p.chargeId,
        JSON.stringify(p.steps),
      ]);
      return rows[0];
    },

    /** A payment's steps, oldest first (the dashboard). */
    async steps(q: Queryable, p: { tenant: string; id: string }): Promise<PaymentStep[] | undefined> {
      const { rows } = await q.query<{ steps: PaymentStep[] | string | null }>(
        `select steps from ${t} where tenant = $1 and id = $2`,
        [p.tenant, p.id],
      );
      if (!rows[0]) return undefined;
      const steps = rows[0].steps;
      return typeof steps === 'string' ? (JSON.parse(steps) as PaymentStep[]) : (steps ?? []);
    },

    /** Inserts a processing payment and returns its row. */
    async insert(
      q: Queryable,
      p: {
        tenant: string;
        id: string;
        amount: string;
        currency: string;
        customerId: string;
        createdAt: string;
      },
    ): Promise<PaymentRow> {
      const { rows } = await q.query<PaymentRow>(insert, [
        p.tenant,
        p.id,
        p.amount,
        p.currency,
        p.customerId,
        p.createdAt,
        p.createdAt,
      ]);
      return rows[0]!;
    },

    /** The tenant's payment, or undefined. */
    async get(q: Queryable, p: { tenant: string; id: string }): Promise<PaymentRow | undefined> {
      const { rows } = await q.query<PaymentRow>(byId, [p.tenant, p.id]);
      return rows[0];
    },

    /**
     * One page of the tenant's payments, newest first, after the keyset `after` (from
     * `PAYMENTS_BY_TIME.decode`); `limit` rows at most (the caller asks one more to learn hasMore).
     */
    async list(
      q: Queryable,
      p: { tenant: string; customerId?: string; after?: readonly [string, string]; limit: number },
    ): Promise<PaymentListRow[]> {
      const params: unknown[] = [p.tenant];
      let where = 'tenant = $1';
      if (p.customerId !== undefined) {
        params.push(p.customerId);
        where += ` and customer_id = $${params.length}`;
      }
      if (p.after !== undefined) {
        params.push(p.after[0], p.after[1]);
        where += ` and (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
      }
      params.push(p.limit);
      const { rows } = await q.query<PaymentListRow>(
        `select ${COLUMNS}, ${cursorTimestampSql('created_at')} as created_at_us from ${t}
          where ${where} order by created_at desc, id desc limit $${params.length}`,
        params,
      );
      return rows;
    },
  };
}

/** The payment statements of one schema (see `paymentData`). */
export type PaymentData = ReturnType<typeof paymentData>;
