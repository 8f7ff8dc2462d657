-- The deliveries' partitions at fillfactor 50 (was 80, migration 000003): room on each page for one
-- new version of every row, so a claim of consecutive fresh rows (the common case: a backlog drained
-- in id order) is a HOT update for each of them, where at 80 a page kept room for about a quarter
-- and the rest were written again with an entry in every index. Measured (docs/decisions.md,
-- "Session 16"): the drain's heap and indexes end smaller, not larger (dead versions and index
-- entries of non-HOT claims cost more room than the free space kept), and the take's time and
-- PostgreSQL's CPU per delivery fall. Applies to pages written from now on; a new window gets it
-- from the maintenance (src/sql/partitions.ts). SHARE UPDATE EXCLUSIVE per partition: no rewrite,
-- writes go on.
do $$
declare
  p record;
begin
  for p in select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
            where i.inhparent = ':SCHEMA.webhook_deliveries'::regclass
  loop
    execute format('alter table :SCHEMA.%I set (fillfactor = 50)', p.relname);
  end loop;
end
$$;
