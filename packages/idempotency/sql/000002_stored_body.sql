-- Stored responses kept small: a body above the engine's compressAboveBytes is stored gzip-compressed
-- in body_gzip (body null); one above maxStoredBodyBytes even compressed is not stored at all
-- (body_encoding 'omitted'), and a replay answers its status and headers with an empty body and
-- `Idempotent-Body-Omitted: true`. Null body_encoding is the plain text body of every earlier row.
-- Adding nullable columns without defaults rewrites nothing: no long lock on a loaded table.
alter table :SCHEMA.idempotency_keys
  add column body_gzip bytea,
  add column body_encoding text check (body_encoding in ('gzip', 'omitted'));
