"""The SQLite store's paged listing and word-search index (:mod:`turnframe.store.search`).

Tables (schema version 3): ``case_search`` holds one row per case, keyed by the case's
``pos``, with its folded search text (``NULL``: unindexed, as every case stored before
version 3 is until the directory indexes it); ``case_terms`` holds the postings
``(account, term, pos)``, a ``WITHOUT ROWID`` table whose primary key is the index a
lookup seeks. :func:`write_search` runs inside the commit's transaction, so a case's
state and its terms are always of the same commit.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from typing import Any

from turnframe.core.ids import CaseRef
from turnframe.store import codec
from turnframe.store.base import CaseRow
from turnframe.store.search import PROBE, CasePage, fold, query_keys, query_words, terms

__all__ = [
    "MIGRATION",
    "SEARCH_SCHEMA",
    "find_page",
    "index_case",
    "list_page",
    "unindexed",
    "write_search",
    "write_search_row",
]

SEARCH_SCHEMA = """
CREATE INDEX IF NOT EXISTS cases_by_account_workflow ON cases (account, workflow, pos);
CREATE TABLE IF NOT EXISTS case_search (
    pos INTEGER PRIMARY KEY REFERENCES cases (pos),
    account TEXT NOT NULL,
    workflow TEXT NOT NULL,
    text TEXT
);
CREATE INDEX IF NOT EXISTS case_search_unindexed ON case_search (account, pos)
    WHERE text IS NULL;
CREATE TABLE IF NOT EXISTS case_terms (
    account TEXT NOT NULL,
    term TEXT NOT NULL,
    pos INTEGER NOT NULL,
    PRIMARY KEY (account, term, pos)
) WITHOUT ROWID;
"""
"""The DDL added by schema version 3, idempotent."""

MIGRATION: tuple[str, ...] = (
    *(st.strip() for st in SEARCH_SCHEMA.split(";") if st.strip()),
    "INSERT OR IGNORE INTO case_search (pos, account, workflow, text)"
    " SELECT pos, account, workflow, NULL FROM cases",
)
"""The statements that bring a database to version 3: the DDL, then an unindexed
``case_search`` row for every case stored before (the directory indexes them)."""

_COLS = "c.pos, c.workflow, c.case_id, c.account, c.state, c.revision"
CHUNK = 400  # case ids per IN (VALUES …) list (two parameters each)


def write_search(
    conn: sqlite3.Connection, case: CaseRef, account: str, search_text: str | None
) -> None:
    """Store the case's folded search text and its postings' difference (in the caller's transaction)."""
    pos, had, before = conn.execute(
        "SELECT c.pos, s.pos, s.text FROM cases c LEFT JOIN case_search s ON s.pos = c.pos"
        " WHERE c.workflow = ? AND c.case_id = ?",
        (case.workflow, case.case_id),
    ).fetchone()
    write_search_row(conn, pos, had is not None, before, case.workflow, account, search_text)


def write_search_row(
    conn: sqlite3.Connection,
    pos: int,
    had: bool,
    before: str | None,
    workflow: str,
    account: str,
    search_text: str | None,
) -> None:
    """Run :func:`write_search` for a case whose row is read already.

    ``pos`` is the case's position, ``had`` whether it has a ``case_search`` row and
    ``before`` that row's text. Writes nothing when the folded text is the stored one (most commits: an edit that
    leaves the case's words alone); otherwise the row and only the postings that differ.
    """
    after = None if search_text is None else fold(search_text)
    if had and before == after:
        return
    if not had:
        conn.execute(
            "INSERT INTO case_search (pos, account, workflow, text) VALUES (?, ?, ?, ?)",
            (pos, account, workflow, after),
        )
    else:
        conn.execute("UPDATE case_search SET text = ? WHERE pos = ?", (after, pos))
    old = frozenset() if before is None else terms(before)
    new = frozenset() if after is None else terms(after)
    if old - new:
        conn.executemany(
            "DELETE FROM case_terms WHERE account = ? AND term = ? AND pos = ?",
            [(account, t, pos) for t in sorted(old - new)],
        )
    if new - old:
        conn.executemany(
            "INSERT INTO case_terms (account, term, pos) VALUES (?, ?, ?)",
            [(account, t, pos) for t in sorted(new - old)],
        )


def _row(row: Any) -> CaseRow:
    return CaseRow(
        case=CaseRef(row[1], row[2]), account=row[3], state=codec.loads(row[4]), revision=row[5]
    )


def _cut(rows: list[Any], limit: int) -> CasePage:
    page = rows[:limit]
    return CasePage(
        rows=tuple(_row(r) for r in page),
        more=len(rows) > limit,
        cursor=str(page[-1][0]) if page else None,
        cursors=tuple(str(r[0]) for r in page),
    )


def list_page(
    conn: sqlite3.Connection,
    account: str,
    workflow: str | None,
    cases: Collection[CaseRef] | None,
    limit: int,
    start: int,
) -> CasePage:
    """Return a page of the account's cases after position ``start`` (one seek per query)."""
    where = "c.account = ? AND c.pos > ?"
    params: list[Any] = [account, start]
    if workflow is not None:
        where += " AND c.workflow = ?"
        params.append(workflow)
    if cases is None:
        rows = conn.execute(
            f"SELECT {_COLS} FROM cases c WHERE {where} ORDER BY c.pos LIMIT ?",
            (*params, limit + 1),
        ).fetchall()
        return _cut(rows, limit)
    ids = sorted({(c.workflow, c.case_id) for c in cases})
    found: list[Any] = []
    for at in range(0, len(ids), CHUNK):
        chunk = ids[at : at + CHUNK]
        marks = ", ".join("(?, ?)" for _ in chunk)
        # CROSS JOIN: seek each id on UNIQUE (workflow, case_id), never scan the account.
        found += conn.execute(
            f"SELECT {_COLS} FROM (VALUES {marks}) AS i CROSS JOIN cases c"
            f" ON c.workflow = i.column1 AND c.case_id = i.column2 WHERE {where}",
            (*(v for pair in chunk for v in pair), *params),
        ).fetchall()
    found.sort(key=lambda r: r[0])
    return _cut(found[: limit + 1], limit)


def find_page(
    conn: sqlite3.Connection,
    account: str,
    words: str,
    workflow: str | None,
    limit: int,
    start: int,
) -> CasePage:
    """Return a page of the indexed cases holding every word, seeking the rarest key."""
    wanted = query_words(words)
    keys = query_keys(wanted)
    if not keys:
        return CasePage(rows=())
    counts = []
    for key in keys:
        (n,) = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM case_terms WHERE account = ? AND term = ?"
            " LIMIT ?)",
            (account, key, PROBE),
        ).fetchone()
        if n == 0:
            return CasePage(rows=())
        counts.append((n, key))
    seek = min(counts)[1]
    checks = " AND ".join("instr(s.text, ?) > 0" for _ in wanted)
    params: list[Any] = [account, seek, start]
    where = "t.account = ? AND t.term = ? AND t.pos > ?"
    if workflow is not None:
        where += " AND s.workflow = ?"
        params.append(workflow)
    rows = conn.execute(
        f"SELECT {_COLS} FROM case_terms t CROSS JOIN case_search s ON s.pos = t.pos"
        f" CROSS JOIN cases c ON c.pos = t.pos WHERE {where} AND {checks}"
        " ORDER BY t.pos LIMIT ?",
        (*params, *wanted, limit + 1),
    ).fetchall()
    return _cut(rows, limit)


def unindexed(conn: sqlite3.Connection, account: str, limit: int) -> list[CaseRow]:
    """Return up to ``limit`` of the account's cases with no search text, oldest first."""
    rows = conn.execute(
        f"SELECT {_COLS} FROM case_search s CROSS JOIN cases c ON c.pos = s.pos"
        " WHERE s.account = ? AND s.text IS NULL ORDER BY s.pos LIMIT ?",
        (account, limit),
    ).fetchall()
    return [_row(r) for r in rows]


def index_case(conn: sqlite3.Connection, case: CaseRef, revision: int, search_text: str) -> bool:
    """Index the case's search text if it is at ``revision`` (in the caller's transaction)."""
    row = conn.execute(
        "SELECT account, revision FROM cases WHERE workflow = ? AND case_id = ?",
        (case.workflow, case.case_id),
    ).fetchone()
    if row is None or row[1] != revision:
        return False
    write_search(conn, case, row[0], search_text)
    return True
