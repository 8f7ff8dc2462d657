-- Orders have client-chosen ids (PUT is naturally idempotent) and a version that every write
-- increments; the ETag is derived from it.
create table :SCHEMA.orders (
  tenant text not null,
  id text not null,
  version int not null,
  status text not null check (status in ('open', 'shipped')),
  customer_id text not null,
  items jsonb not null,
  shipping_address text,
  metadata jsonb not null default '{}',
  created_at timestamptz not null,
  updated_at timestamptz not null,
  shipped_at timestamptz,
  primary key (tenant, id)
);

-- Stock can never go below zero: the decrement is conditional and the check is the last guard.
create table :SCHEMA.inventory (
  tenant text not null,
  sku text not null,
  quantity bigint not null check (quantity >= 0),
  version int not null,
  updated_at timestamptz not null,
  primary key (tenant, sku)
);

create table :SCHEMA.reservations (
  tenant text not null,
  id text not null,
  sku text not null,
  quantity bigint not null check (quantity > 0),
  created_at timestamptz not null,
  primary key (tenant, id)
);
