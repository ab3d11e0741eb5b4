-- Turnframe PostgreSQL store, migration 0007: the replay record's second part in a row of
-- its own (docs/adr/0024-four-writes-per-turn.md rule 4), so the reply inserts a small
-- row instead of writing a new version of the first part's row. The second parts stored
-- in `tf_replay.outcome` before this migration stay there and read as before.

CREATE TABLE tf_replay_outcome (
    account text NOT NULL,
    turn_id text NOT NULL,
    outcome text NOT NULL,
    PRIMARY KEY (account, turn_id)
);
