-- Turnframe PostgreSQL store, migration 0006: the version of the workflow whose commit
-- wrote each case (docs/guides/canary-and-rollback.md "What a case remembers"). A case
-- stored before this migration keeps NULL: its version is "not recorded", and it reads
-- under whatever version is live.

ALTER TABLE tf_case ADD COLUMN workflow_version text;
