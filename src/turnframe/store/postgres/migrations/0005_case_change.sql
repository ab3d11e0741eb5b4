-- Turnframe PostgreSQL store, migration 0005: each case's change position, for the recent
-- page that is a brief's default view (docs/adr/0020-what-a-brief-shows.md;
-- turnframe.store.postgres._search). Every commit of a case draws tf_case_change; a case
-- stored before this migration gets its creation position, and the sequence starts above.

CREATE SEQUENCE tf_case_change;
ALTER TABLE tf_case_search ADD COLUMN changed bigint;
UPDATE tf_case_search SET changed = pos;
ALTER TABLE tf_case_search ALTER COLUMN changed SET NOT NULL;
SELECT setval('tf_case_change', COALESCE((SELECT max(pos) FROM tf_case), 0) + 1, false);
CREATE INDEX tf_case_search_by_change ON tf_case_search (account, changed);
