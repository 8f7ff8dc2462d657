-- Placeholder on branch wt/portal only: 000003 is the `types` helper's service migration (issue 19),
-- and the loader refuses a gap before 000004_portal.sql. DELETE THIS FILE when merging wt/types,
-- whose 000003 takes its place (the lead's merge note in the portal report says so).
select 1;
