-- Delivery and attempt ids (issue 19): time-ordered random text ids like every other id
-- (`dlv_…`, `att_…`: 8 base62 characters of creation time in milliseconds, then 14 random), no
-- longer one counter across every tenant (`dlv_60` revealed the service's total volume).
-- Existing rows keep their public id: `dlv_60` stays `dlv_60` (the API wrote the counter behind the
-- prefix), so links and stored references keep working. `collate "C"`: text order is byte order,
-- which is creation order for the new ids (base62's alphabet is in byte order).
-- Ordered endpoints no longer follow the id (random within a millisecond): each delivery keeps a
-- `sequence`, the head of an ordered endpoint's queue is its pending row with the lowest one. A
-- publish stores its event's sequence; a replay takes a fresh number from the same sequence, so it
-- queues behind what is pending, as it did by id. Existing rows take their event's sequence.
-- Lists read newest first by (created_at, id) and attempts oldest first by (started_at, id), so
-- migrated ids (digits, which sort after the new ones) stay in time order with new ones.
-- The tables are rewritten once (the id's type changes), under an exclusive lock: the migration
-- takes time proportional to the history kept (SURETY_RETENTION_DAYS).

-- The random part comes from gen_random_uuid() (PostgreSQL's strong random source): 15 of its
-- random hex digits (60 bits) per 7 base62 characters, each block reduced modulo 62^7 (within
-- 3 parts in a million of uniform). newId (src/ids.ts) makes the same shape in JavaScript; this is
-- for rows inserted by a statement that fans out (a publish's deliveries, a replay's).
create function :SCHEMA.webhook_new_id(prefix text, at timestamptz) returns text
language plpgsql volatile parallel safe as $$
declare
  a constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  t constant bigint := floor(extract(epoch from at) * 1000);
  u constant text := gen_random_uuid()::text;
  x constant bigint := ('x' || substr(u, 1, 8) || substr(u, 10, 4) || substr(u, 16, 3))::bit(60)::bigint % 3521614606208;
  y constant bigint := ('x' || substr(u, 21, 3) || substr(u, 25, 12))::bit(60)::bigint % 3521614606208;
begin
  return prefix || '_'
    || substr(a, (t / 3521614606208 % 62)::int + 1, 1) || substr(a, (t / 56800235584 % 62)::int + 1, 1)
    || substr(a, (t / 916132832 % 62)::int + 1, 1) || substr(a, (t / 14776336 % 62)::int + 1, 1)
    || substr(a, (t / 238328 % 62)::int + 1, 1) || substr(a, (t / 3844 % 62)::int + 1, 1)
    || substr(a, (t / 62 % 62)::int + 1, 1) || substr(a, (t % 62)::int + 1, 1)
    || substr(a, (x / 56800235584 % 62)::int + 1, 1) || substr(a, (x / 916132832 % 62)::int + 1, 1)
    || substr(a, (x / 14776336 % 62)::int + 1, 1) || substr(a, (x / 238328 % 62)::int + 1, 1)
    || substr(a, (x / 3844 % 62)::int + 1, 1) || substr(a, (x / 62 % 62)::int + 1, 1)
    || substr(a, (x % 62)::int + 1, 1)
    || substr(a, (y / 56800235584 % 62)::int + 1, 1) || substr(a, (y / 916132832 % 62)::int + 1, 1)
    || substr(a, (y / 14776336 % 62)::int + 1, 1) || substr(a, (y / 238328 % 62)::int + 1, 1)
    || substr(a, (y / 3844 % 62)::int + 1, 1) || substr(a, (y / 62 % 62)::int + 1, 1)
    || substr(a, (y % 62)::int + 1, 1);
end $$;

-- The indexes replaced below go first, so that the update does not maintain them.
drop index :SCHEMA.webhook_deliveries_endpoint_pending;
drop index :SCHEMA.webhook_deliveries_by_endpoint;
drop index :SCHEMA.webhook_attempts_by_delivery;

alter table :SCHEMA.webhook_deliveries add column sequence bigint;
update :SCHEMA.webhook_deliveries d set sequence = ev.sequence
  from :SCHEMA.webhook_events ev where ev.tenant = d.tenant and ev.id = d.event_id;
-- A delivery whose event is gone (none should be: retention deletes them together) goes first.
update :SCHEMA.webhook_deliveries set sequence = 0 where sequence is null;
-- A row inserted without one (a replay's, a script's) takes a fresh number: behind what is queued.
alter table :SCHEMA.webhook_deliveries
  alter column sequence set not null,
  alter column sequence set default nextval(':SCHEMA.webhook_event_sequence'),
  alter column id drop identity;
alter table :SCHEMA.webhook_deliveries
  alter column id type text collate "C" using 'dlv_' || id::text,
  alter column id set default :SCHEMA.webhook_new_id('dlv', clock_timestamp());

alter table :SCHEMA.webhook_attempts alter column id drop identity;
alter table :SCHEMA.webhook_attempts
  alter column id type text collate "C" using 'att_' || id::text,
  alter column id set default :SCHEMA.webhook_new_id('att', clock_timestamp()),
  alter column delivery_id type text collate "C" using 'dlv_' || delivery_id::text;

-- Ordered endpoints: the head of an endpoint's queue, by sequence.
create index webhook_deliveries_endpoint_pending on :SCHEMA.webhook_deliveries (tenant, endpoint_id, sequence, id)
  where status = 'pending';
create index webhook_deliveries_by_endpoint on :SCHEMA.webhook_deliveries (tenant, endpoint_id, created_at desc, id desc);
create index webhook_attempts_by_delivery on :SCHEMA.webhook_attempts (delivery_id, started_at, id);
