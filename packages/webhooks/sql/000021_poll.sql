-- Pull delivery (issue 36, docs/destinations.md "Poll"): an endpoint of kind `poll` gets its
-- deliveries from the same fan-out as every kind, written due at 'infinity' so that no worker ever
-- claims one; its consumer reads them through the API in the order of a position assigned per
-- endpoint when they are first read (poll/read.ts), and moves a durable cursor to acknowledge.
--
-- Why a position and not the delivery id: ids (and event sequences) are taken before COMMIT, so a
-- transaction that commits late shows a delivery whose id is below one a consumer has already
-- passed; a cursor over ids would skip it for good. Positions are given only to committed rows,
-- under the cursor row's lock, so they follow the order in which rows became visible: a reader past
-- position p never misses a row that is later given one (it gets a higher one). docs/decisions.md.
alter table :SCHEMA.webhook_deliveries add column poll_position bigint;

-- The consumer's reads, in position order, and the acknowledgement's range; poll rows only.
create index webhook_deliveries_poll on :SCHEMA.webhook_deliveries (tenant, endpoint_id, poll_position)
  where poll_position is not null;
-- The rows still without a position: the next read gives them one. Poll rows only (due at
-- 'infinity'); a webhook delivery is never in it, so the publish path writes no more index entries.
create index webhook_deliveries_poll_unread on :SCHEMA.webhook_deliveries (tenant, endpoint_id, sequence, id)
  where status = 'pending' and next_attempt_at = 'infinity' and poll_position is null;

-- One row per poll endpoint, made at its first read: `head`, the last position given out; `position`,
-- the last one acknowledged (the durable cursor); `key`, the HMAC key of its cursor tokens (random,
-- never returned), so that a consumer cannot forge or edit one. Gone with the endpoint.
create table :SCHEMA.webhook_poll_cursors (
  tenant text not null,
  endpoint_id text not null,
  head bigint not null default 0,
  position bigint not null default 0,
  key bytea not null,
  updated_at timestamptz not null,
  primary key (tenant, endpoint_id),
  foreign key (tenant, endpoint_id) references :SCHEMA.webhook_endpoints (tenant, id) on delete cascade
);
