-- A tenant's own event types (POST /v1/event-types). The service's own types are in code
-- (@surety/events' serviceEvents) and never stored here; a tenant cannot take their names.
-- `version` counts every change (the ETag); `checked_from` is the schema version the compatibility
-- check starts from: the one in force when the mode was last set (docs/event-types.md).
create table :SCHEMA.event_types (
  tenant text not null,
  name text not null,
  description text not null,
  schema jsonb not null,
  examples jsonb not null,
  compatibility text not null default 'full' check (compatibility in ('full', 'backward', 'forward', 'none')),
  checked_from int not null default 1,
  deprecated boolean not null default false,
  version int not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  primary key (tenant, name)
);

-- Every schema a type has had, by the type version that set it: a new schema is checked against
-- each one since `checked_from` (transitively), because events published under any of them can
-- still be retried or replayed to receivers.
create table :SCHEMA.event_type_schemas (
  tenant text not null,
  name text not null,
  version int not null,
  schema jsonb not null,
  created_at timestamptz not null,
  primary key (tenant, name, version),
  foreign key (tenant, name) references :SCHEMA.event_types (tenant, name) on delete cascade
);
