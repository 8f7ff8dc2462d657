/**
 * The SQL of a tenant's event types and their schema history: each statement a typed function with
 * object parameters, every value bound, the schema escaped once (`eventTypeData(schema)`).
 */
import { type Queryable, quoteSchema } from '@surety/db';
import type { JsonSchema } from '@surety/events';
import type { Compatibility } from '../event-types/compatibility.js';

/** A stored event type as the statements return it. */
export interface EventTypeRow {
  name: string;
  description: string;
  schema: JsonSchema;
  examples: unknown[];
  compatibility: Compatibility;
  checked_from: number;
  deprecated: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
}

/** The fields a create or an update writes. */
export interface EventTypeFields {
  description: string;
  schema: JsonSchema;
  examples: unknown[];
  compatibility: Compatibility;
  deprecated: boolean;
}

const COLUMNS =
  'name, description, schema, examples, compatibility, checked_from, deprecated, version, created_at, updated_at';

/** The event-type statements of one schema. */
export function eventTypeData(schema: string) {
  const t = `${quoteSchema(schema)}.event_types`;
  const h = `${quoteSchema(schema)}.event_type_schemas`;
  const c = `${quoteSchema(schema)}.event_type_tenants`;
  return {
    /** The tenant's type, or undefined. */
    async get(q: Queryable, p: { tenant: string; name: string }): Promise<EventTypeRow | undefined> {
      const { rows } = await q.query<EventTypeRow>(
        `select ${COLUMNS} from ${t} where tenant = $1 and name = $2`,
        [p.tenant, p.name],
      );
      return rows[0];
    },

    /** Up to `limit` of the tenant's types named after `after`, by name. */
    async list(
      q: Queryable,
      p: { tenant: string; after: string | null; limit: number },
    ): Promise<EventTypeRow[]> {
      const { rows } = await q.query<EventTypeRow>(
        `select ${COLUMNS} from ${t} where tenant = $1 and ($2::text is null or name > $2)
          order by name limit $3`,
        [p.tenant, p.after, p.limit],
      );
      return rows;
    },

    /** Every type of the tenant, by name (the tenant's AsyncAPI document; bounded by the type limit). */
    async all(q: Queryable, p: { tenant: string }): Promise<EventTypeRow[]> {
      const { rows } = await q.query<EventTypeRow>(
        `select ${COLUMNS} from ${t} where tenant = $1 order by name`,
        [p.tenant],
      );
      return rows;
    },

    /**
     * Creates the type at version 1 with its first schema, taking one of the tenant's `maxTypes`
     * slots in the same statement (the limit holds under concurrent creates): `limit` when none is
     * left, `taken` when the name is (the slot is given back).
     */
    async insert(
      q: Queryable,
      p: { tenant: string; name: string; fields: EventTypeFields; now: string; maxTypes: number },
    ): Promise<EventTypeRow | 'limit' | 'taken'> {
      const f = p.fields;
      const { rows } = await q.query<EventTypeRow & { slot: boolean }>(
        `with slot as (
           insert into ${c} as c (tenant, types) values ($1, 1)
           on conflict (tenant) do update set types = c.types + 1 where c.types < $9
           returning 1),
         created as (
           insert into ${t} (tenant, name, description, schema, examples, compatibility, checked_from,
                             deprecated, version, created_at, updated_at)
           select $1, $2, $3, $4, $5, $6, 1, $7, 1, $8, $8 where exists (select 1 from slot)
           on conflict (tenant, name) do nothing returning ${COLUMNS})
         select true as slot, created.* from slot left join created on true`,
        [
          p.tenant,
          p.name,
          f.description,
          JSON.stringify(f.schema),
          JSON.stringify(f.examples),
          f.compatibility,
          f.deprecated,
          p.now,
          p.maxTypes,
        ],
      );
      const row = rows[0];
      if (!row) return 'limit';
      if (row.name === null) {
        await q.query(`update ${c} set types = types - 1 where tenant = $1`, [p.tenant]);
        return 'taken';
      }
      const { slot: _, ...created } = row;
      await insertSchema(q, { tenant: p.tenant, name: p.name, version: 1, schema: f.schema, now: p.now });
      return created;
    },

    /**
     * Writes the fields if the type is still at `ifVersion` (undefined otherwise), recording the
     * schema in the history when it changed.
     */
    async update(
      q: Queryable,
      p: {
        tenant: string;
        name: string;
        ifVersion: number;
        fields: EventTypeFields;
        checkedFrom: number;
        schemaChanged: boolean;
        now: string;
      },
    ): Promise<EventTypeRow | undefined> {
      const f = p.fields;
      const { rows } = await q.query<EventTypeRow>(
        `update ${t} set description = $3, schema = $4, examples = $5, compatibility = $6,
                checked_from = $7, deprecated = $8, version = version + 1, updated_at = $9
          where tenant = $1 and name = $2 and version = $10 returning ${COLUMNS}`,
        [
          p.tenant,
          p.name,
          f.description,
          JSON.stringify(f.schema),
          JSON.stringify(f.examples),
          f.compatibility,
          p.checkedFrom,
          f.deprecated,
          p.now,
          p.ifVersion,
        ],
      );
      const row = rows[0];
      if (row && p.schemaChanged) {
        await insertSchema(q, {
          tenant: p.tenant,
          name: p.name,
          version: row.version,
          schema: f.schema,
          now: p.now,
        });
      }
      return row;
    },

    /** The type's schemas set at or after type version `from`, oldest first. */
    async schemasSince(
      q: Queryable,
      p: { tenant: string; name: string; from: number },
    ): Promise<{ version: number; schema: JsonSchema }[]> {
      const { rows } = await q.query<{ version: number; schema: JsonSchema }>(
        `select version, schema from ${h} where tenant = $1 and name = $2 and version >= $3 order by version`,
        [p.tenant, p.name, p.from],
      );
      return rows;
    },

    /** How many schemas the type has had. */
    async schemaCount(q: Queryable, p: { tenant: string; name: string }): Promise<number> {
      const { rows } = await q.query<{ n: number }>(
        `select count(*)::int as n from ${h} where tenant = $1 and name = $2`,
        [p.tenant, p.name],
      );
      return rows[0]!.n;
    },

    /** The version of the schema in force now: the latest in the history. */
    async currentSchemaVersion(q: Queryable, p: { tenant: string; name: string }): Promise<number> {
      const { rows } = await q.query<{ v: number }>(
        `select max(version) as v from ${h} where tenant = $1 and name = $2`,
        [p.tenant, p.name],
      );
      return rows[0]?.v ?? 1;
    },
  };

  function insertSchema(
    q: Queryable,
    p: { tenant: string; name: string; version: number; schema: JsonSchema; now: string },
  ) {
    return q.query(
      `insert into ${h} (tenant, name, version, schema, created_at) values ($1, $2, $3, $4, $5)`,
      [p.tenant, p.name, p.version, JSON.stringify(p.schema), p.now],
    );
  }
}
