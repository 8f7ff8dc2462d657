-- The claim records its lease in lease_until, which no index covers, instead of moving
-- next_attempt_at one lease ahead: a claim then changes no indexed column, and PostgreSQL updates the
-- row in place on its page (a HOT update) without a new entry in each of the table's five indexes.
-- fillfactor 80 keeps room on new pages for those in-page versions. Rows claimed before this
-- migration keep their moved next_attempt_at and come back when it passes, as before.
alter table :SCHEMA.webhook_deliveries add column lease_until timestamptz;
alter table :SCHEMA.webhook_deliveries set (fillfactor = 80);
