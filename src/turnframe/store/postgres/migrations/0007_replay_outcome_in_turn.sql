-- Turnframe PostgreSQL store, migration 0007: the replay record's second part is kept
-- in the turn's row (docs/adr/0024-four-writes-per-turn.md rule 4), which the reply
-- updates anyway, so the reply writes no new version of the first part's row and no
-- row of its own. The second parts stored in `tf_replay.outcome` before this migration
-- stay there and read as before.

ALTER TABLE tf_turn ADD COLUMN replay_outcome text;
