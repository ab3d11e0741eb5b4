"""The PostgreSQL store's paged listing and word-search index (:mod:`turnframe.store.search`).

Tables (migration 0004): ``tf_case_search`` (one row per case: its folded search text,
``NULL`` when unindexed, and its terms) and ``tf_case_term`` (the postings
``(account, term, pos)``, whose primary key a lookup seeks). :data:`WRITE_SEARCH` is one
statement sent in the commit's pipeline, after the case write and inside its
transaction: it rewrites the text only when it changed, and the postings by difference.

Migration 0005 adds ``tf_case_search.changed``, the case's change position: every commit
of the case draws it from the sequence ``tf_case_change`` (so it rises with the order in
which commits drew it; indexing is no change and keeps it), and a case stored before
0005 has its creation position. A recent page (:func:`list_sql` with ``recent``) walks
the index ``(account, changed)`` backwards and stops at the page.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from turnframe.core.ids import CaseRef, case_ref
from turnframe.store import codec
from turnframe.store.base import CaseRow
from turnframe.store.search import PROBE, CasePage, fold, query_keys, query_words, terms

__all__ = [
    "CASE_FOR_INDEX",
    "RECENT",
    "UNINDEXED",
    "WRITE_SEARCH",
    "PROBE_KEYS",
    "find_each_sql",
    "find_sql",
    "list_sql",
    "page_of",
    "probe_sql",
    "row_of",
    "search_params",
]

_COLS = "c.pos, c.workflow, c.case_id, c.account, c.state, c.revision, c.workflow_version"

WRITE_SEARCH = """
WITH c AS (
    SELECT pos FROM tf_case WHERE workflow = %(workflow)s AND case_id = %(case_id)s
), prev AS (
    SELECT s.terms FROM tf_case_search s JOIN c ON s.pos = c.pos
), up AS (
    INSERT INTO tf_case_search AS s (pos, account, workflow, text, terms, changed)
    SELECT c.pos, %(account)s, %(workflow)s, %(search)s, %(terms)s::text[],
        nextval('tf_case_change') FROM c
    ON CONFLICT (pos) DO UPDATE SET text = excluded.text, terms = excluded.terms,
        changed = CASE WHEN %(touch)s THEN excluded.changed ELSE s.changed END
    WHERE %(touch)s OR s.text IS DISTINCT FROM excluded.text
), gone AS (
    DELETE FROM tf_case_term t USING c
    WHERE t.account = %(account)s AND t.pos = c.pos AND t.term = ANY (ARRAY(
        SELECT unnest(terms) FROM prev EXCEPT SELECT unnest(%(terms)s::text[])
    ))
)
INSERT INTO tf_case_term (account, term, pos)
SELECT %(account)s, x, c.pos FROM c, unnest(%(terms)s::text[]) AS x
WHERE x <> ALL (COALESCE((SELECT terms FROM prev), '{}'))
ON CONFLICT DO NOTHING
"""
"""Store one case's folded search text and postings; parameters from :func:`search_params`."""

CASE_FOR_INDEX = (
    "SELECT account, revision FROM tf_case WHERE workflow = %s AND case_id = %s FOR UPDATE"
)
UNINDEXED = (
    f"SELECT {_COLS} FROM tf_case_search s JOIN tf_case c ON c.pos = s.pos"
    " WHERE s.account = %s AND s.text IS NULL ORDER BY s.pos LIMIT %s"
)


def search_params(
    case: CaseRef, account: str, search_text: str | None, *, touch: bool = True
) -> dict[str, Any]:
    """Return :data:`WRITE_SEARCH`'s parameters (folded text and sorted terms).

    ``touch`` (a commit wrote the case) draws a new change position; indexing an
    unindexed case passes ``False``.
    """
    folded = None if search_text is None else fold(search_text)
    return {
        "touch": touch,
        "workflow": case.workflow,
        "case_id": case.case_id,
        "account": account,
        "search": folded,
        "terms": [] if folded is None else sorted(terms(folded)),
    }


RECENT = (
    f"SELECT {_COLS} FROM tf_case_search s"
    " CROSS JOIN LATERAL (SELECT * FROM tf_case c WHERE c.pos = s.pos LIMIT 1) AS c"
    " WHERE s.account = %s ORDER BY s.changed DESC LIMIT %s"
)
"""The account's newest change positions first (``limit + 1`` rows: ``more``)."""


def list_sql(
    account: str,
    workflow: str | None,
    cases: Collection[CaseRef] | None,
    limit: int,
    start: int,
    recent: bool = False,
) -> tuple[str, tuple[Any, ...]]:
    """Return the listing query and parameters (one SQL text per filter shape).

    With ``recent`` the rows come newest change first; :func:`page_of` with
    ``recent=True`` puts the page in creation order.
    """
    if recent:
        return RECENT, (account, limit + 1)
    where = "c.account = %s AND c.pos > %s"
    params: tuple[Any, ...] = (account, start)
    if workflow is not None:
        where += " AND c.workflow = %s"
        params += (workflow,)
    if cases is None:
        return (
            f"SELECT {_COLS} FROM tf_case c WHERE {where} ORDER BY c.pos LIMIT %s",
            (*params, limit + 1),
        )
    ids = sorted({(c.workflow, c.case_id) for c in cases})
    return (
        f"SELECT {_COLS} FROM unnest(%s::text[], %s::text[]) AS i (w, id)"
        f" JOIN tf_case c ON c.workflow = i.w AND c.case_id = i.id WHERE {where}"
        " ORDER BY c.pos LIMIT %s",
        ([w for w, _ in ids], [i for _, i in ids], *params, limit + 1),
    )


def probe_sql(account: str, words: str) -> tuple[tuple[str, ...], str, tuple[Any, ...]]:
    """Return the folded words, and the query counting each key's postings up to PROBE."""
    wanted = query_words(words)
    keys = list(query_keys(wanted))
    sql = (
        "SELECT k, (SELECT count(*) FROM (SELECT 1 FROM tf_case_term t"
        " WHERE t.account = %s AND t.term = k LIMIT %s) AS x)"
        " FROM unnest(%s::text[]) AS k"
    )
    return wanted, sql, (account, PROBE, keys)


def find_sql(
    account: str,
    seek: str,
    wanted: tuple[str, ...],
    workflow: str | None,
    limit: int,
    start: int,
) -> tuple[str, tuple[Any, ...]]:
    """Return the lookup seeking ``seek``'s postings and checking every word on the text."""
    where = "t.account = %s AND t.term = %s AND t.pos > %s"
    params: tuple[Any, ...] = (account, seek, start)
    if workflow is not None:
        where += " AND s.workflow = %s"
        params += (workflow,)
    # LATERAL … LIMIT 1 keeps the plan a walk of the postings in ``pos`` order with one
    # primary-key probe per posting (never a hash join over the account's cases), and the
    # page's LIMIT stops the walk.
    return (
        f"SELECT {_COLS} FROM tf_case_term t"
        " CROSS JOIN LATERAL (SELECT s.text, s.workflow FROM tf_case_search s"
        " WHERE s.pos = t.pos LIMIT 1) AS s"
        " CROSS JOIN LATERAL (SELECT * FROM tf_case c WHERE c.pos = t.pos LIMIT 1) AS c"
        f" WHERE {where} AND s.text IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM unnest(%s::text[]) AS w WHERE strpos(s.text, w) = 0)"
        " ORDER BY t.pos LIMIT %s",
        (*params, list(wanted), limit + 1),
    )


PROBE_KEYS = (
    "SELECT k, (SELECT count(*) FROM (SELECT 1 FROM tf_case_term t"
    " WHERE t.account = %s AND t.term = k LIMIT %s) AS x)"
    " FROM unnest(%s::text[]) AS k"
)
"""Every key's postings counted up to ``PROBE``; parameters ``(account, PROBE, keys)``."""


def find_each_sql(
    account: str, seeks: Sequence[tuple[int, str, tuple[str, ...]]], limit: int
) -> tuple[str, tuple[Any, ...]]:
    """Return one ``UNION ALL`` of :func:`find_sql`'s first-page walks, tagged by mention.

    ``seeks``: (mention number, key to seek, the mention's folded words); each row
    comes back as ``(mention number, pos, workflow, case_id, account, state, revision,
    workflow_version)``.
    """
    branches: list[str] = []
    params: list[Any] = []
    for n, seek, wanted in seeks:
        branches.append(
            f"(SELECT %s::int AS m, {_COLS} FROM tf_case_term t"
            " CROSS JOIN LATERAL (SELECT s.text FROM tf_case_search s"
            " WHERE s.pos = t.pos LIMIT 1) AS s"
            " CROSS JOIN LATERAL (SELECT * FROM tf_case c WHERE c.pos = t.pos LIMIT 1) AS c"
            " WHERE t.account = %s AND t.term = %s AND s.text IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM unnest(%s::text[]) AS w WHERE strpos(s.text, w) = 0)"
            " ORDER BY t.pos LIMIT %s)"
        )
        params += [n, account, seek, list(wanted), limit + 1]
    return " UNION ALL ".join(branches), tuple(params)


def row_of(row: Any) -> CaseRow:
    """Return a ``CaseRow`` from a row of ``_COLS`` (``pos`` first, ``workflow_version`` last)."""
    return CaseRow(
        case=case_ref(row[1], row[2]),
        account=row[3],
        state=codec.loads(row[4]),
        revision=row[5],
        workflow_version=row[6],
    )


def page_of(rows: list[Any], limit: int, recent: bool = False) -> CasePage:
    """Return the page of the first ``limit`` rows (``more`` when one more was read).

    With ``recent`` (rows newest change first) the page is put in creation order.
    """
    page = sorted(rows[:limit], key=lambda r: int(r[0])) if recent else rows[:limit]
    return CasePage(
        rows=tuple(row_of(r) for r in page),
        more=len(rows) > limit,
        cursor=str(page[-1][0]) if page else None,
        cursors=tuple(str(r[0]) for r in page),
    )
