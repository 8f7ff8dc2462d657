-- Endpoints per tenant, counted in one row per tenant so that the limit holds under concurrent
-- creates: a create increments the tenant's row only while it is under the limit (ON CONFLICT DO
-- UPDATE … WHERE re-reads the latest committed row under its lock, so two creates cannot both take
-- the last slot), in the same statement as the endpoint's insert; a delete decrements it in the
-- statement that deletes. Counting the endpoints at each create would need a lock and a second
-- statement (a statement's own count cannot see a create that committed while it waited).
create table :SCHEMA.webhook_tenants (
  tenant text primary key,
  endpoints int not null check (endpoints >= 0)
);
insert into :SCHEMA.webhook_tenants (tenant, endpoints)
  select tenant, count(*) from :SCHEMA.webhook_endpoints group by tenant;
