-- The consumer portal (docs/portal.md). A portal session lets one of a tenant's customers manage
-- the endpoints of one application through the API, with a bearer token `ps_<id>.<secret>`. Only
-- the SHA-256 of the secret is kept: a copy of this table authenticates no one.
create table :SCHEMA.portal_sessions (
  -- Session ids are random (`ps_` + 22 base62) and unique across tenants: a token names its
  -- session without naming its tenant, so the lookup is by id alone.
  id text primary key,
  tenant text not null,
  application_id text not null,
  -- SHA-256 of the token's secret part, 32 bytes.
  token_hash bytea not null check (octet_length(token_hash) = 32),
  read_only boolean not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null
);

-- Expired sessions are purged by age (server.ts); the purge reads this index, never the table.
create index portal_sessions_by_expiry on :SCHEMA.portal_sessions (expires_at);

-- One row per tenant that changed its portal settings; a tenant without one has the defaults
-- (no origin may frame the portal). `version` makes the ETag.
create table :SCHEMA.portal_settings (
  tenant text primary key,
  frame_ancestors text[] not null,
  version int not null,
  updated_at timestamptz not null
);
