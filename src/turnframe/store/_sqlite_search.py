"""The SQLite store's paged listing and word-search index (:mod:`turnframe.store.search`).

Tables (schema version 3): ``case_search`` holds one row per case, keyed by the case's
``pos``, with its folded search text (``NULL``: unindexed, as every case stored before
version 3 is until the directory indexes it); ``case_terms`` holds the postings
``(account, term, pos)``, a ``WITHOUT ROWID`` table whose primary key is the index a
lookup seeks. :func:`write_search` runs inside the commit's transaction, so a case's
state and its terms are always of the same commit.

Schema version 4 adds ``case_search.changed``, the case's change position (the
account's largest plus one, drawn by every commit of the case inside its
``BEGIN IMMEDIATE`` transaction, so positions are distinct and rise with commit order;
a case stored before version 4 gets its creation position), and the index
``(account, changed)`` a recent page (``list_cases_page(recent=True)``) seeks backwards.

Schema version 5 adds ``case_search.stale``: the terms still posted for the case that
its text no longer holds, space-separated (a term holds no whitespace), at most
:data:`STALE_TERMS` of them. A posting is only where a seek starts: every match is
checked against the case's current text, and a key with no posting is carried by no
case's text, so postings that are a superset of the text's terms give the same answers.
Keeping them means a commit that changes a case's words back and forth ("Porto Spring",
"Porto Autumn") writes only the postings the case never had, instead of rewriting
postings spread over as many index pages as terms changed (the 10,000-record turn's
commit wrote 22 pages of ``case_terms`` for a rename, against 2 at 10 records). When a
commit would keep more than :data:`STALE_TERMS`, it deletes them all, so a case's
postings stay bounded by its text's terms plus that many.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Collection, Sequence
from functools import lru_cache
from operator import itemgetter
from typing import Any

from turnframe.core.ids import CaseRef, case_ref
from turnframe.store import codec
from turnframe.store.base import CaseRow, with_stored_text
from turnframe.store.search import (
    PROBE,
    CasePage,
    fold,
    query_keys,
    query_words,
    rarest,
    terms,
)

__all__ = [
    "MIGRATION",
    "SEARCH_SCHEMA",
    "STALE_TERMS",
    "find_each",
    "find_page",
    "index_case",
    "list_page",
    "unindexed",
    "write_search",
    "write_search_row",
]

_SEARCH_SCHEMA_V3 = """
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
# Version 3's DDL exactly as it shipped: a version-2 database is brought to 3 by it, then
# to 4 by turnframe.store._sqlite_schema.MIGRATIONS[4], like every database that was at 3.

SEARCH_SCHEMA = """
CREATE INDEX IF NOT EXISTS cases_by_account_workflow ON cases (account, workflow, pos);
CREATE TABLE IF NOT EXISTS case_search (
    pos INTEGER PRIMARY KEY REFERENCES cases (pos),
    account TEXT NOT NULL,
    workflow TEXT NOT NULL,
    text TEXT,
    changed INTEGER NOT NULL DEFAULT 0,
    stale TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS case_search_unindexed ON case_search (account, pos)
    WHERE text IS NULL;
CREATE INDEX IF NOT EXISTS case_search_by_change ON case_search (account, changed);
CREATE TABLE IF NOT EXISTS case_terms (
    account TEXT NOT NULL,
    term TEXT NOT NULL,
    pos INTEGER NOT NULL,
    PRIMARY KEY (account, term, pos)
) WITHOUT ROWID;
"""
"""The DDL of the search tables at the current version (5), idempotent."""

MIGRATION: tuple[str, ...] = (
    *(st.strip() for st in _SEARCH_SCHEMA_V3.split(";") if st.strip()),
    "INSERT OR IGNORE INTO case_search (pos, account, workflow, text)"
    " SELECT pos, account, workflow, NULL FROM cases",
)
"""The statements that bring a database to version 3: the DDL, then an unindexed
``case_search`` row for every case stored before (the directory indexes them)."""

_NEXT_CHANGE = "(SELECT COALESCE(MAX(changed), 0) + 1 FROM case_search WHERE account = ?)"
"""The account's next change position (one seek of ``case_search_by_change``)."""

STALE_TERMS = 64
"""The most postings a case keeps for terms its text no longer holds (module docstring)."""

_COLS = "c.pos, c.workflow, c.case_id, c.account, c.state, c.revision, c.workflow_version"
CHUNK = 400  # case ids per IN (VALUES …) list (two parameters each)


def write_search(
    conn: sqlite3.Connection,
    case: CaseRef,
    account: str,
    search_text: str | None,
    *,
    touch: bool = True,
) -> None:
    """Store the case's folded search text and its postings' difference (in the caller's transaction).

    ``touch`` (a commit wrote the case) gives it the account's next change position;
    :func:`index_case` passes ``False``: indexing is no change of the case.
    """
    pos, had, before, stale = conn.execute(
        "SELECT c.pos, s.pos, s.text, s.stale FROM cases c"
        " LEFT JOIN case_search s ON s.pos = c.pos WHERE c.workflow = ? AND c.case_id = ?",
        (case.workflow, case.case_id),
    ).fetchone()
    write_search_row(
        conn,
        pos,
        had is not None,
        before,
        case.workflow,
        account,
        search_text,
        touch=touch,
        stale=stale or "",
    )


_terms = lru_cache(maxsize=1024)(terms)
""":func:`~turnframe.store.search.terms`, cached: a commit that changes a case's words
splits the text before (the last change's text after, most often) and after; both are
pure functions of the text."""


def write_search_row(
    conn: sqlite3.Connection,
    pos: int,
    had: bool,
    before: str | None,
    workflow: str,
    account: str,
    search_text: str | None,
    *,
    touch: bool = True,
    stale: str = "",
) -> None:
    """Run :func:`write_search` for a case whose row is read already.

    ``pos`` is the case's position, ``had`` whether it has a ``case_search`` row,
    ``before`` that row's text and ``stale`` its stale terms. With ``touch`` the row
    takes the account's next change position; the postings change only where the folded
    text changed (most commits leave the case's words alone), and then only by the
    terms the case has no posting for, unless the stale terms would then pass
    :data:`STALE_TERMS` (all of them are deleted then; module docstring).
    """
    after = None if search_text is None else fold(search_text)
    if had and before == after:
        if touch:
            conn.execute(
                f"UPDATE case_search SET changed = {_NEXT_CHANGE} WHERE pos = ?", (account, pos)
            )
        return
    old = frozenset() if before is None else _terms(before)
    new = frozenset() if after is None else _terms(after)
    posted = old.union(stale.split()) if stale else old
    kept = posted - new
    dropped: frozenset[str] = frozenset()
    if len(kept) > STALE_TERMS:
        dropped, kept = kept, frozenset()
    left = " ".join(sorted(kept))
    if not had:
        conn.execute(
            "INSERT INTO case_search (pos, account, workflow, text, changed, stale)"
            f" VALUES (?, ?, ?, ?, {_NEXT_CHANGE}, ?)",
            (pos, account, workflow, after, account, left),
        )
    elif touch:
        conn.execute(
            f"UPDATE case_search SET text = ?, stale = ?, changed = {_NEXT_CHANGE} WHERE pos = ?",
            (after, left, account, pos),
        )
    else:
        conn.execute("UPDATE case_search SET text = ?, stale = ? WHERE pos = ?", (after, left, pos))
    if dropped:
        conn.executemany(
            "DELETE FROM case_terms WHERE account = ? AND term = ? AND pos = ?",
            [(account, t, pos) for t in sorted(dropped)],
        )
    if new - posted:
        conn.executemany(
            "INSERT INTO case_terms (account, term, pos) VALUES (?, ?, ?)",
            [(account, t, pos) for t in sorted(new - posted)],
        )


def _row(row: Any) -> CaseRow:
    text = row[4]
    case = CaseRow(
        case=case_ref(row[1], row[2]),
        account=row[3],
        state=codec.loads(text),
        revision=row[5],
        workflow_version=row[6],
    )
    return with_stored_text(case, text)


def _cut(
    rows: list[Any],
    limit: int,
    texts: bool = False,
    decoded: dict[int, CaseRow] | None = None,
    more: bool | None = None,
) -> CasePage:
    """Return the page of ``rows`` (``_COLS``, then the folded text when ``texts``).

    ``decoded``: rows of the same statement already decoded, by position; a row two
    pages share (two mentions finding one case) is decoded once. ``more``: whether
    cases beyond the page match, when ``rows`` does not tell (default: it holds more
    than ``limit``).
    """
    page = rows[:limit]
    if decoded is None:
        out = tuple([_row(r) for r in page])
    else:
        found = []
        for r in page:
            row = decoded.get(r[0])
            if row is None:
                row = decoded[r[0]] = _row(r)
            found.append(row)
        out = tuple(found)
    return CasePage(
        rows=out,
        more=len(rows) > limit if more is None else more,
        cursor=str(page[-1][0]) if page else None,
        cursors=tuple([str(r[0]) for r in page]),
        texts=tuple([r[7] for r in page]) if texts else (),
    )


def list_page(
    conn: sqlite3.Connection,
    account: str,
    workflow: str | None,
    cases: Collection[CaseRef] | None,
    limit: int,
    start: int,
    recent: bool = False,
) -> CasePage:
    """Return a page of the account's cases after position ``start`` (one seek per query).

    With ``recent`` (no filter, ``start`` 0): the ``limit`` cases of the newest change
    positions, read backwards on ``case_search_by_change``, in creation order.
    """
    if recent:
        rows = conn.execute(
            f"SELECT {_COLS}, s.text FROM case_search s CROSS JOIN cases c ON c.pos = s.pos"
            " WHERE s.account = ? ORDER BY s.changed DESC LIMIT ?",
            (account, limit + 1),
        ).fetchall()
        return _cut(sorted(rows[:limit], key=_position), limit, texts=True, more=len(rows) > limit)
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
    seek = rarest(keys, _probe(conn, account, keys))
    if seek is None:
        return CasePage(rows=())
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


def _probe(
    conn: sqlite3.Connection, account: str, keys: Sequence[str], cap: int = PROBE
) -> dict[str, int]:
    """Return each key's postings counted up to ``cap``, in one statement."""
    rows = conn.execute(_probe_sql(len(keys)), (account, cap, *keys)).fetchall()
    return dict(rows)  # (TEXT, count(*)): a str and an int each


@lru_cache(maxsize=256)
def _probe_sql(keys: int) -> str:
    """Return :func:`_probe`'s statement for ``keys`` keys."""
    marks = ", ".join("(?)" for _ in range(keys))
    return (
        "SELECT k.column1, (SELECT count(*) FROM (SELECT 1 FROM case_terms t"
        f" WHERE t.account = ? AND t.term = k.column1 LIMIT ?)) FROM (VALUES {marks}) AS k"
    )


_LETTER_PERCENT = dict(
    zip(
        "etaoinsrhldcumfpgwybvkxjqz",
        (
            12.7,
            9.1,
            8.2,
            7.5,
            7.0,
            6.7,
            6.3,
            6.0,
            6.1,
            4.0,
            4.3,
            2.8,
            2.8,
            2.4,
            2.2,
            1.9,
            2.0,
            2.4,
            2.0,
            1.5,
            1.0,
            0.8,
            0.15,
            0.15,
            0.1,
            0.07,
        ),
        strict=True,
    )
)
"""How often each letter occurs in English text, in percent (a rough, public table)."""
_DIGIT_PERCENT = 3.0
"""A digit's weight: dates, years and emails make digits about as common as ``c``."""
_OTHER_PERCENT = 1.0
"""Any other character's weight (punctuation, letters outside ``a``–``z``)."""


def _weight(char: str) -> float:
    if char.isdigit():
        return _DIGIT_PERCENT
    return _LETTER_PERCENT.get(char, _OTHER_PERCENT)


@lru_cache(maxsize=4096)
def _likely_rare(keys: tuple[str, ...]) -> str:
    """Return the key likeliest to be rare: the least product of its characters' weights.

    A key's characters' frequencies in English text (:data:`_LETTER_PERCENT`) multiplied
    estimate how often the key occurs ("spr" before "ing", "omp" before "com"). Only
    which key is counted first depends on it (ties: the first in sort order), never an
    answer. Pure, cached.
    """
    best, score = keys[0], math.inf
    for key in keys:
        weight = math.prod(_weight(c) for c in key)
        if weight < score:
            best, score = key, weight
    return best


def find_each(
    conn: sqlite3.Connection, account: str, mentions: Sequence[str], limit: int
) -> tuple[CasePage, ...]:
    """Return :func:`find_page`'s first page for each mention, in two to three statements.

    Which key each mention's walk seeks: a mention with one key seeks it, uncounted.
    Every other mention's first key (the one :func:`_likely_rare` picks) is counted
    first (one statement for all, up to ``limit + 2``): none, and the mention matches
    nothing; at most ``limit + 1``, and its walk is that short. Only the mentions whose
    first key is commoner have their other keys counted (one more statement, up to
    :data:`PROBE`), and seek the rarest of those (:func:`rarest`; none when one has no
    posting). Whatever the key, the walk checks the whole rule, so the answer is the
    same: the counting only bounds the walk, and it reads far fewer postings than
    counting every key. One ``UNION ALL`` then seeks each mention's key (a branch per
    mention that can match, each its own bounded walk of the postings,
    ``LIMIT limit + 1``).
    """
    plans = [_plan(mention) for mention in mentions]
    counted = {p[3] for p in plans}
    counted.discard("")
    counts = _probe(conn, account, sorted(counted), limit + 2) if counted else {}
    branches: list[str] = []
    params: list[Any] = []
    common: list[int] = []
    for n, (wanted, keys, first, counts_first) in enumerate(plans):
        if counts_first:
            count = counts[first]
            if not count:
                continue  # a key no case carries: the mention matches nothing
            if count > limit + 1:
                common.append(n)
                continue
        elif not keys:
            continue
        branches.append(_branch(n, len(wanted)))
        params += [account, first, *wanted, limit + 1]
    if common:  # the first key is commoner than the walk wants: the rarest other
        others = {n: [k for k in plans[n][1] if k != plans[n][2]] for n in common}
        rest = _probe(conn, account, sorted({k for ks in others.values() for k in ks}))
        for n, other_keys in others.items():
            seek = rarest(other_keys, rest)
            if seek is not None:
                wanted = plans[n][0]
                branches.append(_branch(n, len(wanted)))
                params += [account, seek, *wanted, limit + 1]
    out = [_EMPTY] * len(plans)
    if branches:
        found: dict[int, list[Any]] = {}
        for row in conn.execute(" UNION ALL ".join(branches), params).fetchall():
            found.setdefault(row[0], []).append(row[1:])
        decoded: dict[int, CaseRow] = {}  # this statement's rows only: one read, one snapshot
        for n, rows in found.items():
            rows.sort(key=_position)
            out[n] = _cut(rows, limit, texts=True, decoded=decoded)
    return tuple(out)


_EMPTY = CasePage(rows=())


@lru_cache(maxsize=4096)
def _plan(mention: str) -> tuple[tuple[str, ...], tuple[str, ...], str, str]:
    """Return a mention's (words, keys, first key, counted key); pure, cached.

    :func:`query_words`, :func:`query_keys`, the key :func:`find_each` seeks or counts
    first (its one key, or :func:`_likely_rare`'s; ``""`` with none) and that key again
    when it is counted (a mention of several keys), else ``""``.
    """
    wanted = query_words(mention)
    keys = query_keys(wanted)
    if not keys:
        return wanted, keys, "", ""
    if len(keys) == 1:
        return wanted, keys, keys[0], ""
    first = _likely_rare(keys)
    return wanted, keys, first, first


@lru_cache(maxsize=1024)
def _branch(n: int, words: int) -> str:
    """Return :func:`find_each`'s ``UNION ALL`` branch for mention ``n`` of ``words`` words."""
    checks = " AND ".join("instr(s.text, ?) > 0" for _ in range(words))
    return (
        f"SELECT {n} AS m, * FROM (SELECT {_COLS}, s.text FROM case_terms t"
        " CROSS JOIN case_search s ON s.pos = t.pos CROSS JOIN cases c ON c.pos = t.pos"
        f" WHERE t.account = ? AND t.term = ? AND {checks} ORDER BY t.pos LIMIT ?)"
    )


_position = itemgetter(0)
"""A row's ``pos`` (its first column, an ``INTEGER``): the creation order rows sort by."""


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
    write_search(conn, case, row[0], search_text, touch=False)
    return True
