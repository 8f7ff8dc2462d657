-- Reserved: migration 9 shipped as a no-op (it held a number for a branch that landed later under
-- another number). Databases have it recorded as applied, so it stays, unchanged, for good: the
-- loader refuses gaps, and a real script here would never run on those databases.
select 1;
