-- One row per event a consumer has processed. `receive` inserts it in the same transaction as the
-- consumer's own writes, so "recorded as seen" and "its effects" commit or roll back together.
-- The primary key is the de-duplication: a second insert of (consumer, event_id) waits for the
-- first transaction and then finds the row (committed) or inserts it (the first rolled back).
create table :SCHEMA.webhook_inbox (
  consumer text not null,
  event_id text not null,
  received_at timestamptz not null,
  primary key (consumer, event_id)
);

-- purge() deletes by age.
create index webhook_inbox_received_at on :SCHEMA.webhook_inbox (received_at);
