-- Turnframe PostgreSQL store, migration 0004: the replay record in two parts, each written
-- once (docs/adr/0024-four-writes-per-turn.md): `record` with the plan, `outcome` when the
-- turn replies. A record saved whole keeps `outcome` NULL.

ALTER TABLE tf_replay ADD COLUMN outcome text;
