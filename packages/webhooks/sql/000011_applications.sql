-- Applications (issue 19, docs/applications.md): the level between a tenant and its endpoints, one
-- per customer of the tenant (Svix's application, Convoy's project, Hook0's application).
-- `uid` is the tenant's own id for that customer; ids start with `app_` and uids may not, so a
-- reference is one or the other by its prefix and each lookup uses one index.
create table :SCHEMA.webhook_applications (
  tenant text not null,
  id text not null,
  uid text,
  name text not null,
  metadata jsonb not null default '{}',
  version int not null default 1,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant, id)
);
create unique index webhook_applications_uid on :SCHEMA.webhook_applications (tenant, uid) where uid is not null;
-- listApplications pages newest first by (created_at, id), like the other lists.
create index webhook_applications_by_created on :SCHEMA.webhook_applications (tenant, created_at desc, id desc);

-- An endpoint belongs to at most one application, for life. The foreign key makes an endpoint
-- create that races an application's delete wait for it (the create's key-share lock against the
-- delete's FOR UPDATE) and then fail, instead of leaving an endpoint of an application that is gone.
-- Null for the tenant's own endpoints: the column and the constraint are catalogue-only changes
-- plus one scan that finds no application ids (no table rewrite).
alter table :SCHEMA.webhook_endpoints add column application_id text;
alter table :SCHEMA.webhook_endpoints
  add constraint webhook_endpoints_application foreign key (tenant, application_id)
  references :SCHEMA.webhook_applications (tenant, id);
-- Fan-out to one application, the list filter, and the application's delete read its endpoints here;
-- fan-out without an application reads `application_id is null` from it.
create index webhook_endpoints_by_application on :SCHEMA.webhook_endpoints (tenant, application_id);

-- The application an event was published to (null: the tenant's own), kept after the application
-- is deleted (events stay until retention): a replay reaches that application's endpoints only.
alter table :SCHEMA.webhook_events add column application_id text;
