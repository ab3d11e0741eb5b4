"""The SQLite schema of :class:`turnframe.store.sqlite.SqliteStore` (docs/architecture.md "Stores").

Created on open with ``CREATE TABLE IF NOT EXISTS``; ``schema_version`` records the
version so a later release can migrate. Every JSON column holds compact JSON text.

Tables: ``conversations`` (state per conversation), ``turns`` (phase, data and the
reply's blocks), ``interactions`` (immutable spec, status, resolution), ``cases``
(state and revision, I12), ``events`` (the claim ledger, positional key
``(workflow, case_id, revision, ord)``, I15), ``outbox``, ``journal`` (idempotency keys
with the request hash and the serialised result, I13) and ``replays`` (I20; a
replay record's second part is kept with the reply, in ``turns.replay_outcome``).
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "SCHEMA", "SCHEMA_VERSION"]

SCHEMA_VERSION = 7
"""The version this release writes and reads (7: the replay record's second part in the
turn's row, ``turns.replay_outcome``; 6: the workflow version that last wrote
each case, docs/guides/canary-and-rollback.md; 5: the postings a case keeps past its
text, 4: the cases' change positions, 3: the
word-search index, both :mod:`turnframe.store._sqlite_search`; version 2 is the
``writes`` change)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS conversations (
    account TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (account, conversation_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS turns (
    pos INTEGER PRIMARY KEY,
    turn_id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    phase TEXT NOT NULL,
    input TEXT NOT NULL,
    data TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    reply TEXT,
    replay_outcome TEXT,
    UNIQUE (account, conversation_id, seq)
);
CREATE INDEX IF NOT EXISTS turns_unfinished ON turns (pos) WHERE phase <> 'replied';
CREATE TABLE IF NOT EXISTS interactions (
    pos INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    case_workflow TEXT,
    case_id TEXT,
    spec TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    resolution TEXT,
    seq INTEGER NOT NULL,
    UNIQUE (account, conversation_id, seq)
);
CREATE INDEX IF NOT EXISTS interactions_open_by_case
    ON interactions (account, case_workflow, case_id) WHERE status = 'open';
CREATE TABLE IF NOT EXISTS cases (
    pos INTEGER PRIMARY KEY,
    workflow TEXT NOT NULL,
    case_id TEXT NOT NULL,
    account TEXT NOT NULL,
    state TEXT NOT NULL,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    workflow_version TEXT,
    UNIQUE (workflow, case_id)
);
CREATE INDEX IF NOT EXISTS cases_by_account ON cases (account, pos);
CREATE TABLE IF NOT EXISTS events (
    pos INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    workflow TEXT NOT NULL,
    case_id TEXT NOT NULL,
    revision INTEGER NOT NULL,
    ord INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    operation TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    UNIQUE (workflow, case_id, revision, ord),
    FOREIGN KEY (workflow, case_id) REFERENCES cases (workflow, case_id)
);
CREATE TABLE IF NOT EXISTS outbox (
    pos INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    workflow TEXT NOT NULL,
    case_id TEXT NOT NULL,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL,
    FOREIGN KEY (workflow, case_id) REFERENCES cases (workflow, case_id)
);
CREATE INDEX IF NOT EXISTS outbox_by_status ON outbox (status, pos);
CREATE TABLE IF NOT EXISTS journal (
    account TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    operations TEXT NOT NULL,
    result TEXT NOT NULL,
    PRIMARY KEY (account, idempotency_key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replays (
    account TEXT NOT NULL,
    turn_id TEXT NOT NULL,
    record TEXT NOT NULL,
    outcome TEXT,
    PRIMARY KEY (account, turn_id)
) WITHOUT ROWID;
"""
"""The DDL of the current version, idempotent (``IF NOT EXISTS`` throughout).

A replay record is stored in two parts, each written once
(docs/adr/0024-four-writes-per-turn.md): ``replays.record`` holds the first, written
with the plan; ``turns.replay_outcome`` (version 7) the second, written when the turn
replies, in the turn row that the reply rewrites anyway, so the reply does not rewrite
the first part's row (and its overflow pages) nor write a row of its own.
``replays.outcome`` (versions 2–6) holds the second parts written before version 7; it
is read, never written, except to clear it when a record is replaced."""

MIGRATIONS: dict[int, tuple[str, ...]] = {
    # version 2: the replay record is stored in two parts, each once (ADR 0024).
    2: ("ALTER TABLE replays ADD COLUMN outcome TEXT",),
    # version 3: the word-search index (turnframe.store._sqlite_search.MIGRATION, added
    # in turnframe.store._sqlite_ops, which imports both modules).
    # version 4: the cases' change positions, for recent pages (the default view of a
    # brief, docs/adr/0020-what-a-brief-shows.md; turnframe.store._sqlite_search):
    # The table is rebuilt (not ALTERed), so the step holds whatever columns it finds.
    4: (
        "CREATE TABLE case_search_v4 (pos INTEGER PRIMARY KEY REFERENCES cases (pos),"
        " account TEXT NOT NULL, workflow TEXT NOT NULL, text TEXT,"
        " changed INTEGER NOT NULL DEFAULT 0)",
        "INSERT INTO case_search_v4 (pos, account, workflow, text, changed)"
        " SELECT pos, account, workflow, text, pos FROM case_search",
        "DROP TABLE case_search",
        "ALTER TABLE case_search_v4 RENAME TO case_search",
        "CREATE INDEX case_search_unindexed ON case_search (account, pos) WHERE text IS NULL",
        "CREATE INDEX case_search_by_change ON case_search (account, changed)",
    ),
    # version 5: the terms still posted for a case that its text no longer holds (kept
    # so a commit that changes words writes fewer index pages; _sqlite_search).
    5: ("ALTER TABLE case_search ADD COLUMN stale TEXT NOT NULL DEFAULT ''",),
    # version 6: the workflow version whose commit wrote each case (NULL for a case
    # written before: it reads as "not recorded", docs/guides/canary-and-rollback.md).
    6: ("ALTER TABLE cases ADD COLUMN workflow_version TEXT",),
    # version 7: the replay record's second part in the turn's row (ADR 0024 rule 4).
    # The parts stored in ``replays.outcome`` before stay there and read as before.
    7: ("ALTER TABLE turns ADD COLUMN replay_outcome TEXT",),
}
"""Statements that bring a database of version ``n - 1`` to version ``n``, per ``n``.

Applied in order, in the opening transaction, to a database whose stored version is
older; a fresh database gets :data:`SCHEMA` whole and needs none."""
