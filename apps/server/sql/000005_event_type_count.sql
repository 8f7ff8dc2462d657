-- Event types per tenant, counted in one row per tenant so that the type limit holds under
-- concurrent creates (issue 30, N5: counting the types, then inserting, let 20 creates at 195 end
-- at 205). A create takes a slot in the statement that inserts: ON CONFLICT DO UPDATE … WHERE
-- re-reads the latest committed row under its lock, so two creates cannot both take the last one
-- (as webhook_tenants does for endpoints). Types are never deleted, so the count only grows.
create table :SCHEMA.event_type_tenants (
  tenant text primary key,
  types int not null check (types >= 0)
);
insert into :SCHEMA.event_type_tenants (tenant, types)
  select tenant, count(*) from :SCHEMA.event_types group by tenant;
