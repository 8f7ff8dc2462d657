/**
 * The SQL of the consumer portal (sql/000004_portal.sql): sessions and per-tenant settings. Each
 * statement a typed function with object parameters, every value bound, the schema escaped once
 * (`portalData(schema)`). The token hash crosses as hex text (`decode`/`encode`), so both backends
 * hand the same string back and no driver's bytea mapping is relied on.
 */
import { type Queryable, quoteSchema } from '@surety/db';

/** A session row as the statements return it. */
export interface PortalSessionRow {
  id: string;
  tenant: string;
  application_id: string;
  /** SHA-256 of the token's secret, hex. */
  token_hash: string;
  read_only: boolean;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/** A tenant's settings row; absent until the tenant first writes them. */
export interface PortalSettingsRow {
  frame_ancestors: string[];
  version: number;
  updated_at: Date;
}

const SESSION = `id, tenant, application_id, encode(token_hash, 'hex') as token_hash, read_only,
  expires_at, revoked_at, created_at`;

/** The portal statements of one schema. */
export function portalData(schema: string) {
  const sessions = `${quoteSchema(schema)}.portal_sessions`;
  const settings = `${quoteSchema(schema)}.portal_settings`;
  // Named: the lookup runs on every request a portal token authenticates.
  const byId = {
    name: `surety_portal_session_${schema}`,
    text: `select ${SESSION} from ${sessions} where id = $1`,
  };
  return {
    /** Stores a new session (the token's secret is never stored: `tokenHash` is its SHA-256). */
    async insertSession(
      q: Queryable,
      p: {
        id: string;
        tenant: string;
        applicationId: string;
        tokenHash: string;
        readOnly: boolean;
        expiresAt: string;
        createdAt: string;
      },
    ): Promise<PortalSessionRow> {
      const { rows } = await q.query<PortalSessionRow>(
        `insert into ${sessions}
           (id, tenant, application_id, token_hash, read_only, expires_at, created_at)
         values ($1, $2, $3, decode($4, 'hex'), $5, $6, $7) returning ${SESSION}`,
        [p.id, p.tenant, p.applicationId, p.tokenHash, p.readOnly, p.expiresAt, p.createdAt],
      );
      return rows[0]!;
    },

    /** The session of this id, of any tenant (what a token names), or undefined. */
    async sessionById(q: Queryable, id: string): Promise<PortalSessionRow | undefined> {
      const { rows } = await q.query<PortalSessionRow>(byId, [id]);
      return rows[0];
    },

    /**
     * Revokes the tenant's session (revoking again keeps the first time); the row, or undefined
     * when the tenant has no such session.
     */
    async revokeSession(
      q: Queryable,
      p: { tenant: string; id: string; at: string },
    ): Promise<PortalSessionRow | undefined> {
      const { rows } = await q.query<PortalSessionRow>(
        `update ${sessions} set revoked_at = coalesce(revoked_at, $3)
          where tenant = $1 and id = $2 returning ${SESSION}`,
        [p.tenant, p.id, p.at],
      );
      return rows[0];
    },

    /**
     * Revokes every open session of an application (call it where the application is deleted);
     * how many.
     */
    async revokeApplicationSessions(
      q: Queryable,
      p: { tenant: string; applicationId: string; at: string },
    ): Promise<number> {
      const r = await q.query(
        `update ${sessions} set revoked_at = $3
          where tenant = $1 and application_id = $2 and revoked_at is null`,
        [p.tenant, p.applicationId, p.at],
      );
      return r.rowCount ?? 0;
    },

    /** Deletes sessions that expired before `before`; how many. */
    async purgeSessions(q: Queryable, p: { before: string }): Promise<number> {
      const r = await q.query(`delete from ${sessions} where expires_at < $1`, [p.before]);
      return r.rowCount ?? 0;
    },

    /** The tenant's settings, or undefined when it never set them. */
    async settings(q: Queryable, p: { tenant: string }): Promise<PortalSettingsRow | undefined> {
      const { rows } = await q.query<PortalSettingsRow>(
        `select frame_ancestors, version, updated_at from ${settings} where tenant = $1`,
        [p.tenant],
      );
      return rows[0];
    },

    /**
     * Writes the tenant's settings if they are still at `ifVersion` (0: never written); the new
     * row, or undefined when another write came first.
     */
    async putSettings(
      q: Queryable,
      p: { tenant: string; frameAncestors: readonly string[]; ifVersion: number; at: string },
    ): Promise<PortalSettingsRow | undefined> {
      const { rows } = await q.query<PortalSettingsRow>(
        p.ifVersion === 0
          ? `insert into ${settings} (tenant, frame_ancestors, version, updated_at)
             values ($1, $2, 1, $3) on conflict (tenant) do nothing
             returning frame_ancestors, version, updated_at`
          : `update ${settings} set frame_ancestors = $2, version = version + 1, updated_at = $3
              where tenant = $1 and version = $4 returning frame_ancestors, version, updated_at`,
        p.ifVersion === 0
          ? [p.tenant, p.frameAncestors, p.at]
          : [p.tenant, p.frameAncestors, p.at, p.ifVersion],
      );
      return rows[0];
    },
  };
}

/** The portal statements of one schema (see `portalData`). */
export type PortalData = ReturnType<typeof portalData>;
