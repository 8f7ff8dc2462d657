/**
 * The SQL of inventory and reservations: each statement a typed function with object parameters,
 * every value bound, the schema escaped once (`inventoryData(schema)`).
 */
import { type Queryable, quoteSchema } from '@surety/db';

/** A stock row as the statements return it (quantity as text: a bigint column). */
export interface StockRow {
  sku: string;
  quantity: string;
  version: number;
  updated_at: Date;
}

const COLUMNS = 'sku, quantity::text, version, updated_at';

/** The inventory statements of one schema. */
export function inventoryData(schema: string) {
  const t = `${quoteSchema(schema)}.inventory`;
  const r = `${quoteSchema(schema)}.reservations`;
  // Named: planned once per connection (the reservation is the contended hot path).
  const reserve = {
    name: `surety_reserve_${schema}`,
    text: `update ${t} set quantity = quantity - $3, version = version + 1, updated_at = $4
            where tenant = $1 and sku = $2 and quantity >= $3 returning quantity::text`,
  };
  return {
    /** The tenant's stock of a SKU, or undefined. */
    async get(q: Queryable, p: { tenant: string; sku: string }): Promise<StockRow | undefined> {
      const { rows } = await q.query<StockRow>(`select ${COLUMNS} from ${t} where tenant = $1 and sku = $2`, [
        p.tenant,
        p.sku,
      ]);
      return rows[0];
    },

    /** Creates the SKU's stock at version 1; undefined when it exists already. */
    async insert(
      q: Queryable,
      p: { tenant: string; sku: string; quantity: number; now: string },
    ): Promise<StockRow | undefined> {
      const { rows } = await q.query<StockRow>(
        `insert into ${t} (tenant, sku, quantity, version, updated_at) values ($1, $2, $3, 1, $4)
         on conflict (tenant, sku) do nothing returning ${COLUMNS}`,
        [p.tenant, p.sku, p.quantity, p.now],
      );
      return rows[0];
    },

    /** Sets the quantity if the stock is still at `ifVersion`; undefined otherwise. */
    async update(
      q: Queryable,
      p: { tenant: string; sku: string; quantity: number; ifVersion: number; now: string },
    ): Promise<StockRow | undefined> {
      const { rows } = await q.query<StockRow>(
        `update ${t} set quantity = $3, version = version + 1, updated_at = $4
          where tenant = $1 and sku = $2 and version = $5 returning ${COLUMNS}`,
        [p.tenant, p.sku, p.quantity, p.now, p.ifVersion],
      );
      return rows[0];
    },

    /**
     * Takes `quantity` from the stock in one conditional decrement (never a read-then-write, so
     * concurrent reservations cannot oversell); the quantity left, or undefined when there was not
     * enough (or no such SKU).
     */
    async decrement(
      q: Queryable,
      p: { tenant: string; sku: string; quantity: number; now: string },
    ): Promise<string | undefined> {
      const { rows } = await q.query<{ quantity: string }>(reserve, [p.tenant, p.sku, p.quantity, p.now]);
      return rows[0]?.quantity;
    },

    /** Records a reservation. */
    async insertReservation(
      q: Queryable,
      p: { tenant: string; id: string; sku: string; quantity: number; createdAt: string },
    ): Promise<void> {
      await q.query(`insert into ${r} (tenant, id, sku, quantity, created_at) values ($1, $2, $3, $4, $5)`, [
        p.tenant,
        p.id,
        p.sku,
        p.quantity,
        p.createdAt,
      ]);
    },
  };
}

/** The inventory statements of one schema (see `inventoryData`). */
export type InventoryData = ReturnType<typeof inventoryData>;
