-- Placeholder: migration 13 is the `ids` branch's second number (issue 19: endpoint headers),
-- merged in the same session. Delete this file when that branch's 000013_*.sql arrives: two files
-- with the same id make loadMigrations throw "out of sequence", so the merge cannot miss it.
select 1;
