-- Placeholder: migration 7 is reserved for another branch merged in the same session (issue 21's
-- is 000010, as assigned). Delete this file when that branch's 000007_*.sql arrives: two files
-- with the same id make loadMigrations throw "out of sequence", so the merge cannot miss it.
select 1;
