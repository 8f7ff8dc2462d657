-- Placeholder: migration 11 is the `apps` branch's (issue 19, applications), merged in the same
-- session. Delete this file when that branch's 000011_*.sql arrives: two files with the same id make
-- loadMigrations throw "out of sequence", so the merge cannot miss it.
select 1;
