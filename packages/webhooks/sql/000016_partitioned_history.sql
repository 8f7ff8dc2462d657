-- Time-partitioned history, step 3 of 3: each table becomes partition p0 of a partitioned table of
-- its name. For the events, catalogue changes only, under ACCESS EXCLUSIVE locks held for
-- milliseconds (the deliveries and attempts are read once: see their block below): the rename;
-- the new parent (columns, defaults and checks copied with LIKE); ATTACH, which reads no row since
-- the validated CHECK (000015) proves the bound; the parent's indexes, each created over p0's
-- equivalent one (PostgreSQL attaches an existing matching index instead of building one); a
-- DEFAULT partition (empty). docs/operations.md says what this costs on a loaded database.
--
-- Indexes: every index of the old table is declared on the parent (so every partition has it),
-- except unique ones that leave out the partition key, which a partitioned table cannot have: the
-- events' primary key (tenant, id) stays p0's own (still unique there) and later partitions get a
-- plain (tenant, id) index from the maintenance that creates them (src/partitions.ts).
-- The DEFAULT partition catches a row no window covers yet (the maintenance fell behind, a clock
-- far ahead): an insert never fails for want of a partition, and creating the window moves them.
do $$
declare
  ends timestamptz := (select ends_at from :SCHEMA.webhook_partitions where suffix = 'p0');
  t record;
  i record;
  def text;
begin
  for t in select * from (values
      ('webhook_events', 'created_at', quote_literal(ends::text) || '::timestamptz')
    ) as x(tbl, key, bound)
  loop
    execute format('alter table :SCHEMA.%I rename to %I', t.tbl, t.tbl || '_p0');
    create temp table old_indexes on commit drop as
      select c.relname::text as name, x.indisunique as is_unique, x.indisprimary as is_primary,
             (select array_agg(a.attname::text order by k.n)
                from unnest(x.indkey) with ordinality as k(attnum, n)
                join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum) as cols
        from pg_index x join pg_class c on c.oid = x.indexrelid
       where x.indrelid = format(':SCHEMA.%I', t.tbl || '_p0')::regclass;
    for i in select * from old_indexes loop
      execute format('alter index :SCHEMA.%I rename to %I', i.name, left(i.name, 59) || '_p0');
    end loop;
    execute format('create table :SCHEMA.%I (like :SCHEMA.%I including defaults including constraints including generated including storage) partition by range (%I)',
                   t.tbl, t.tbl || '_p0', t.key);
    execute format('alter table :SCHEMA.%I drop constraint %I', t.tbl, t.tbl || '_p0_bound');
    execute format('alter table :SCHEMA.%I attach partition :SCHEMA.%I for values from (minvalue) to (%s)',
                   t.tbl, t.tbl || '_p0', t.bound);
    execute format('alter table :SCHEMA.%I drop constraint %I', t.tbl || '_p0', t.tbl || '_p0_bound');
    for i in select * from old_indexes loop
      if i.is_primary and i.cols = array[t.key] then
        execute format('alter table :SCHEMA.%I add constraint %I primary key (%I)', t.tbl, i.name, t.key);
      elsif not i.is_unique then
        def := pg_get_indexdef(format(':SCHEMA.%I', left(i.name, 59) || '_p0')::regclass);
        def := regexp_replace(def, '^CREATE INDEX \S+ ON \S+ USING ',
                              format('CREATE INDEX %I ON :SCHEMA.%I USING ', i.name, t.tbl));
        execute def;
      end if;
    end loop;
    drop table old_indexes;
    execute format('create table :SCHEMA.%I partition of :SCHEMA.%I default', t.tbl || '_default', t.tbl);
  end loop;
end
$$;
create index webhook_events_default_key on :SCHEMA.webhook_events_default (tenant, id);

-- Deliveries and attempts, partitioned by id. Their ids are time-ordered (`dlv_` + 8 characters of
-- time + random, migration 000012) except those written before it, which kept their public form
-- `dlv_<number>`: those sort after every time-ordered id (a digit from 1 to 9 after the prefix,
-- where a time-ordered id has 0 until the year 2081). So each old table becomes partition
-- `<table>_p0_legacy` FROM ('dlv_1') TO (MAXVALUE); the time-ordered rows it holds (written between
-- 000012 and now: in one upgrade, during these migrations only) are moved into `<table>_p0`, FROM
-- (MINVALUE) to p0's bound. Attaching the old table reads it once to check the bound, under the
-- ACCESS EXCLUSIVE lock this migration holds (a CHECK cannot be validated beforehand: rows written
-- meanwhile are of the other form). The windows lie between p0's bound and 'dlv_1'.
do $$
declare
  ends timestamptz := (select ends_at from :SCHEMA.webhook_partitions where suffix = 'p0');
  t record;
  i record;
  legacy text;
  def text;
begin
  for t in select * from (values ('webhook_deliveries', 'dlv', 'with (fillfactor = 80)'),
                                 ('webhook_attempts', 'att', '')) as x(tbl, prefix, storage)
  loop
    legacy := t.tbl || '_p0_legacy';
    execute format('alter table :SCHEMA.%I rename to %I', t.tbl, legacy);
    create temp table old_indexes on commit drop as
      select c.relname::text as name, x.indisunique as is_unique, x.indisprimary as is_primary,
             (select array_agg(a.attname::text order by k.n)
                from unnest(x.indkey) with ordinality as k(attnum, n)
                join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum) as cols
        from pg_index x join pg_class c on c.oid = x.indexrelid
       where x.indrelid = format(':SCHEMA.%I', legacy)::regclass;
    for i in select * from old_indexes loop
      execute format('alter index :SCHEMA.%I rename to %I', i.name, left(i.name, 52) || '_legacy');
    end loop;
    execute format('create table :SCHEMA.%I (like :SCHEMA.%I including defaults including constraints including generated including storage) partition by range (id)',
                   t.tbl, legacy);
    execute format('create table :SCHEMA.%I (like :SCHEMA.%I including defaults including constraints including generated including storage) %s',
                   t.tbl || '_p0', legacy, t.storage);
    execute format('with m as (delete from :SCHEMA.%I where id < %L returning *) insert into :SCHEMA.%I select * from m',
                   legacy, t.prefix || '_1', t.tbl || '_p0');
    execute format('alter table :SCHEMA.%I attach partition :SCHEMA.%I for values from (minvalue) to (%L)',
                   t.tbl, t.tbl || '_p0', :SCHEMA.webhook_time_id(t.prefix, ends));
    execute format('alter table :SCHEMA.%I attach partition :SCHEMA.%I for values from (%L) to (maxvalue)',
                   t.tbl, legacy, t.prefix || '_1');
    for i in select * from old_indexes loop
      if i.is_primary and i.cols = array['id'] then
        execute format('alter table :SCHEMA.%I add constraint %I primary key (id)', t.tbl, i.name);
      elsif not i.is_unique then
        def := pg_get_indexdef(format(':SCHEMA.%I', left(i.name, 52) || '_legacy')::regclass);
        def := regexp_replace(def, '^CREATE INDEX \S+ ON \S+ USING ',
                              format('CREATE INDEX %I ON :SCHEMA.%I USING ', i.name, t.tbl));
        execute def;
      end if;
    end loop;
    drop table old_indexes;
    execute format('create table :SCHEMA.%I partition of :SCHEMA.%I default %s', t.tbl || '_default', t.tbl, t.storage);
  end loop;
end
$$;

-- Keys of events written between 000015's copy and the switch (read through p0's created_at index).
insert into :SCHEMA.webhook_event_ids (tenant, id, created_at)
  select tenant, id, created_at from :SCHEMA.webhook_events_p0
   where created_at >= coalesce((select max(created_at) from :SCHEMA.webhook_event_ids), '-infinity')
  on conflict do nothing;
