-- Receiver authentication per endpoint (issue 37, docs/receiver-auth.md): `auth` holds the
-- endpoint's basic credentials, OAuth2 client credentials, or mTLS client certificate and key, as
-- checked when written (src/auth/config.ts). Its secrets (password, client secret, private key) never
-- leave the engine: an endpoint shows a redacted form, and nothing logs or traces them. Null: the
-- receiver is sent no credentials. A nullable column with no default: a catalogue-only change.
alter table :SCHEMA.webhook_endpoints add column auth jsonb;
