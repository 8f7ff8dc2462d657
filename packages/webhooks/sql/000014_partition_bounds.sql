-- Time-partitioned history (issue 22; docs/operations.md, "Partitions and retention"), step 1 of 3.
-- Events are partitioned by created_at, deliveries and attempts by id (time-ordered: `dlv_` and 8
-- characters of creation time in milliseconds, then random; ids sort by time in byte order). The
-- three tables share time windows, listed here: retention drops a window's three partitions together.
-- Window `p0` holds every row written before the switch: the existing tables become its partitions
-- (migration 000016), bounded by a time two days ahead (UTC midnight) so that rows written while
-- these migrations run still fall inside it.
create table :SCHEMA.webhook_partitions (
  suffix text primary key,
  starts_at timestamptz not null,
  ends_at timestamptz not null unique,
  check (starts_at < ends_at)
);
insert into :SCHEMA.webhook_partitions (suffix, starts_at, ends_at)
  values ('p0', '-infinity', date_trunc('day', now() at time zone 'UTC') at time zone 'UTC' + interval '2 days');

-- The id prefix of a time: `prefix_` and the 8 base62 characters newId (src/ids.ts) writes for that
-- millisecond. Every id made at or after `at` sorts at or above it (collation "C"), every id made
-- before sorts below: the partition bounds of deliveries and attempts.
create function :SCHEMA.webhook_time_id(prefix text, at timestamptz) returns text
  language sql immutable strict parallel safe as $$
  select prefix || '_' || string_agg(
           substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
                  (div(floor(extract(epoch from at) * 1000)::numeric, power(62::numeric, 7 - i)) % 62)::int + 1, 1),
           '' order by i)
    from generate_series(0, 7) as i
$$;

-- The creation time of a delivery's event, so that reading the event (the claim, listings) is a
-- lookup in the one partition holding it instead of one per partition. Null on rows written before
-- this migration: their events are looked for up to the delivery's own creation time.
alter table :SCHEMA.webhook_deliveries add column event_created_at timestamptz;

-- Each table's rows are proved to lie below p0's bound by a CHECK constraint, added here NOT VALID
-- (a catalogue change: enforced for new rows at once, existing rows not read) and validated by
-- 000015 under a lock that lets reads and writes go on, so that attaching the table as a partition
-- (000016) needs no scan under the exclusive lock.
do $$
declare
  ends timestamptz := (select ends_at from :SCHEMA.webhook_partitions where suffix = 'p0');
  t record;
begin
  for t in select * from (values
      ('webhook_events', 'created_at', quote_literal(ends::text) || '::timestamptz')
    ) as x(tbl, key, bound)
  loop
    execute format('alter table :SCHEMA.%I add constraint %I check (%I < %s) not valid',
                   t.tbl, t.tbl || '_p0_bound', t.key, t.bound);
  end loop;
end
$$;
