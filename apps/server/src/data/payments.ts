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
  status: 'succeeded';
  created_at: Date;
}

/** A row of the list: also its created_at exact, as the cursor carries it. */
export interface PaymentListRow extends PaymentRow {
  created_at_us: string;
}

const COLUMNS = 'id, amount::text, currency, customer_id, status, created_at';

/** The payment statements of one schema. */
export function paymentData(schema: string) {
  const t = `${quoteSchema(schema)}.payments`;
  // Named: planned once per connection (the insert is the benchmarked hot path).
  const insert = {
    name: `surety_payment_insert_${schema}`,
    text: `insert into ${t} (tenant, id, amount, currency, customer_id, status, created_at)
           values ($1, $2, $3, $4, $5, 'succeeded', $6) returning ${COLUMNS}`,
  };
  const byId = {
    name: `surety_payment_get_${schema}`,
    text: `select ${COLUMNS} from ${t} where tenant = $1 and id = $2`,
  };
  return {
    /** Inserts a succeeded payment and returns its row. */
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
