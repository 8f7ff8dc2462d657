create table :SCHEMA.payments (
  tenant text not null,
  id text not null,
  -- minor units (cents); bigint holds every amount the API accepts (at most 18 digits)
  amount bigint not null check (amount > 0),
  currency text not null,
  customer_id text not null,
  status text not null,
  created_at timestamptz not null,
  primary key (tenant, id)
);

-- Keyset pagination, newest first, per tenant and optionally per customer.
create index payments_by_created on :SCHEMA.payments (tenant, created_at desc, id desc);
create index payments_by_customer on :SCHEMA.payments (tenant, customer_id, created_at desc, id desc);
