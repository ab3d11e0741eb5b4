"""SQLite's word index keeps a case's stale postings, bounded, and answers as a full scan.

The class of defect: a posting left behind (or one missing) when a case's words change,
over any sequence of commits, unindexings and re-indexings of the same cases. The index
may keep postings for terms a case's text no longer holds (``case_search.stale``, at
most ``STALE_TERMS``; turnframe.store._sqlite_search), never miss one its text holds,
and every lookup must answer what matching every case's current text answers.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core.ids import CaseRef
from turnframe.store._sqlite_search import STALE_TERMS
from turnframe.store.base import CommitRequest
from turnframe.store.search import fold, matches, query_words, terms
from turnframe.store.sqlite import SqliteStore

_WORDS = ["ana", "anna", "lisbon", "lis", "porto", "spring", "autumn", "sil", "silva", "a"]
_ACCOUNT = "acct"


def _request(case: CaseRef, revision: int, text: str | None, key: str) -> CommitRequest:
    return CommitRequest(
        account=_ACCOUNT,
        case=case,
        expected_revision=revision,
        state={"rev": revision + 1},
        events=(),
        outbox=(),
        idempotency_key=key,
        request_hash=f"hash-{key}",
        turn_id="turn-1",
        operations=(),
        search_text=text,
    )


def _postings(path: Path) -> tuple[dict[int, set[str]], dict[int, tuple[str | None, str]]]:
    conn = sqlite3.connect(str(path))
    try:
        posted: dict[int, set[str]] = {}
        for term, pos in conn.execute(
            "SELECT term, pos FROM case_terms WHERE account = ?", (_ACCOUNT,)
        ):
            posted.setdefault(pos, set()).add(term)
        rows = {
            pos: (text, stale)
            for pos, text, stale in conn.execute(
                "SELECT pos, text, stale FROM case_search WHERE account = ?", (_ACCOUNT,)
            )
        }
        return posted, rows
    finally:
        conn.close()


_TEXT = st.one_of(
    st.none(),
    st.lists(st.sampled_from(_WORDS), max_size=4).map(" ".join),
    # Many distinct terms: a few commits of one case pass the stale bound.
    st.text("abcdefghijklmnopqrstuvwxyz ", min_size=20, max_size=60),
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(st.tuples(st.integers(0, 2), st.booleans(), _TEXT), min_size=1, max_size=24),
    mentions=st.lists(st.sampled_from([*_WORDS, "ana silva", "o", "abc", "ghij"]), min_size=1),
)
def test_postings_cover_the_text_and_lookups_equal_a_full_scan(
    tmp_path_factory: object,
    steps: list[tuple[int, bool, str | None]],
    mentions: list[str],
) -> None:
    """Commits and re-indexings in any order: postings = text's terms + stale, bounded."""
    path = tmp_path_factory.mktemp("stale") / "index.db"  # type: ignore[attr-defined]

    async def body() -> None:
        store = await SqliteStore.open(path)
        try:
            revisions = [0, 0, 0]
            texts: dict[CaseRef, str | None] = {}
            for n, (which, reindex, text) in enumerate(steps):
                case = CaseRef("trip", f"c{which}")
                if reindex and revisions[which] and texts[case] is None and text is not None:
                    assert await store.index_case(case, revisions[which], text)
                else:
                    await store.commit(_request(case, revisions[which], text, f"k{n}"))
                    revisions[which] += 1
                texts[case] = None if text is None else text
            posted, rows = _postings(path)
            for pos, (text, stale) in rows.items():
                kept = set(stale.split())
                want = set() if text is None else set(terms(text))
                assert posted.get(pos, set()) == want | kept, (text, stale)
                assert not kept & want and len(kept) <= STALE_TERMS
            assert all(len(stale.split()) <= STALE_TERMS for _, stale in rows.values())
            listed = [r.case for r in await store.list_cases(_ACCOUNT)]
            for limit in (1, 2, 20):
                pages = await store.find_cases_each(_ACCOUNT, mentions, limit=limit)
                for mention, page in zip(mentions, pages, strict=True):
                    words = query_words(mention)
                    expected = [
                        c
                        for c in listed
                        if texts.get(c) is not None and matches(fold(texts[c] or ""), words)
                    ]
                    assert [r.case for r in page.rows] == expected[:limit], mention
                    assert page.more == (len(expected) > limit), mention
                    assert page.texts == tuple(fold(texts[c] or "") for c in expected[:limit])
                    assert page == await store.find_cases(_ACCOUNT, mention, limit=limit)
        finally:
            await store.close()

    anyio.run(body)


def test_a_case_renamed_again_and_again_keeps_at_most_the_bound(tmp_path: Path) -> None:
    """Each rename adds new terms; past ``STALE_TERMS`` stale ones they are all deleted."""
    names = [" ".join(f"{w}{n}{w}" for w in ("alpha", "bravo", "delta", "gamma")) for n in range(9)]

    async def body() -> None:
        store = await SqliteStore.open(tmp_path / "renames.db")
        case = CaseRef("trip", "c")
        try:
            sizes = []
            for n, name in enumerate(names):
                await store.commit(_request(case, n, name, f"k{n}"))
                posted, rows = _postings(tmp_path / "renames.db")
                ((pos, (text, stale)),) = rows.items()
                assert posted[pos] == set(terms(fold(name))) | set(stale.split())
                sizes.append(len(stale.split()))
                assert [r.case for r in (await store.find_cases(_ACCOUNT, name)).rows] == [case]
                if n:
                    assert (await store.find_cases(_ACCOUNT, names[n - 1])).rows == ()
            assert max(sizes) <= STALE_TERMS and 0 in sizes[1:]  # the bound was reached
            assert sizes[1] > 0  # below it, the old terms stay posted
        finally:
            await store.close()

    anyio.run(body)
