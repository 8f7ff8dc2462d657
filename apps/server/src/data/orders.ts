/**
 * The SQL of orders: each statement a typed function with object parameters, every value bound,
 * the schema escaped once (`orderData(schema)`). Writes are conditional on the version read
 * (`… where version = $n`): none returns a row when another request wrote first.
 */
import { type Queryable, quoteSchema } from '@surety/db';

/** An order row as the statements return it. */
export interface OrderRow {
  id: string;
  version: number;
  status: 'open' | 'shipped';
  customer_id: string;
  items: { sku: string; quantity: number }[];
  shipping_address: string | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  shipped_at: Date | null;
}

/** The editable fields of an order. */
export interface OrderFields {
  customerId: string;
  items: { sku: string; quantity: number }[];
  shippingAddress?: string;
  metadata?: Record<string, string>;
}

const COLUMNS =
  'id, version, status, customer_id, items, shipping_address, metadata, created_at, updated_at, shipped_at';

/** The order statements of one schema. */
export function orderData(schema: string) {
  const t = `${quoteSchema(schema)}.orders`;
  const byId = {
    name: `surety_order_get_${schema}`,
    text: `select ${COLUMNS} from ${t} where tenant = $1 and id = $2`,
  };
  return {
    /** The tenant's order, or undefined. */
    async get(q: Queryable, p: { tenant: string; id: string }): Promise<OrderRow | undefined> {
      const { rows } = await q.query<OrderRow>(byId, [p.tenant, p.id]);
      return rows[0];
    },

    /** Creates an open order at version 1; undefined when one with this id exists already. */
    async insert(
      q: Queryable,
      p: { tenant: string; id: string; fields: OrderFields; now: string },
    ): Promise<OrderRow | undefined> {
      const { rows } = await q.query<OrderRow>(
        `insert into ${t} (tenant, id, version, status, customer_id, items, shipping_address, metadata, created_at, updated_at)
         values ($1, $2, 1, 'open', $3, $4::jsonb, $5, $6::jsonb, $7, $7)
         on conflict (tenant, id) do nothing
         returning ${COLUMNS}`,
        [
          p.tenant,
          p.id,
          p.fields.customerId,
          JSON.stringify(p.fields.items),
          p.fields.shippingAddress ?? null,
          JSON.stringify(p.fields.metadata ?? {}),
          p.now,
        ],
      );
      return rows[0];
    },

    /** Replaces the editable fields if the order is still at `ifVersion`; undefined otherwise. */
    async update(
      q: Queryable,
      p: { tenant: string; id: string; ifVersion: number; fields: OrderFields; now: string },
    ): Promise<OrderRow | undefined> {
      const { rows } = await q.query<OrderRow>(
        `update ${t} set customer_id = $3, items = $4::jsonb, shipping_address = $5, metadata = $6::jsonb,
                version = version + 1, updated_at = $7
          where tenant = $1 and id = $2 and version = $8
          returning ${COLUMNS}`,
        [
          p.tenant,
          p.id,
          p.fields.customerId,
          JSON.stringify(p.fields.items),
          p.fields.shippingAddress ?? null,
          JSON.stringify(p.fields.metadata ?? {}),
          p.now,
          p.ifVersion,
        ],
      );
      return rows[0];
    },

    /** Marks an open order shipped if it is still at `ifVersion`; undefined otherwise. */
    async ship(
      q: Queryable,
      p: { tenant: string; id: string; ifVersion: number; now: string },
    ): Promise<OrderRow | undefined> {
      const { rows } = await q.query<OrderRow>(
        `update ${t} set status = 'shipped', shipped_at = $3, updated_at = $3, version = version + 1
          where tenant = $1 and id = $2 and version = $4 and status = 'open'
          returning ${COLUMNS}`,
        [p.tenant, p.id, p.now, p.ifVersion],
      );
      return rows[0];
    },
  };
}

/** The order statements of one schema (see `orderData`). */
export type OrderData = ReturnType<typeof orderData>;
