-- Time-partitioned history, step 2 of 3: each table read once, with reads and writes going on.
-- VALIDATE CONSTRAINT takes SHARE UPDATE EXCLUSIVE (it blocks DDL and VACUUM only) while it scans.
do $$
declare
  t text;
begin
  foreach t in array array['webhook_events'] loop
    execute format('alter table :SCHEMA.%I validate constraint %I', t, t || '_p0_bound');
  end loop;
end
$$;

-- Event ids a publisher chose (`publish({ id })`, "for idempotent publishing") stay unique per
-- tenant: a partitioned table has no unique index that leaves out its partition key (created_at),
-- so the (tenant, id) pairs chosen by callers are kept here, one narrow row each, inserted by the
-- publish statement (a second publish of the id fails on this primary key, as it failed on the
-- events' own before). Generated ids (`evt_` + time + 83 random bits) are unique by construction
-- and are not kept. Retention deletes the rows of the events it dropped (docs/decisions.md).
-- Rows written before the switch cannot be told apart: every existing event's key is copied.
create table :SCHEMA.webhook_event_ids (
  tenant text not null,
  id text not null,
  created_at timestamptz not null,
  primary key (tenant, id)
);
create index webhook_event_ids_created on :SCHEMA.webhook_event_ids (created_at);
insert into :SCHEMA.webhook_event_ids (tenant, id, created_at)
  select tenant, id, created_at from :SCHEMA.webhook_events;
