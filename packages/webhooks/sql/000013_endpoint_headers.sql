-- Custom headers per endpoint (issue 19): `{ "name": "value" }` sent with every attempt. The engine
-- checks them when they are set (src/headers.ts: reserved names, RFC 9110 tokens, no control
-- characters, at most 20). A constant default: a catalogue-only change, no table rewrite.
alter table :SCHEMA.webhook_endpoints add column headers jsonb not null default '{}';
