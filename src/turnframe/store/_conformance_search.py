"""Conformance tests of the paged listing and the word-search index (:mod:`turnframe.store.search`).

Mixed into :class:`turnframe.store.conformance.StoreConformance`, so every store runs
them: keyset paging (no duplicate, no gap, also while cases are inserted), the filters,
the recent page (the newest changes, in creation order), the terms written in the commit's transaction (and rolled back with it), re-indexing,
and a property test that the indexed lookup answers exactly what reading every case and
matching its text in Python answers.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core.ids import CaseRef
from turnframe.store._conformance_base import ConformanceBase
from turnframe.store.base import CommitRequest, TurnStore
from turnframe.store.errors import InteractionAlreadyResolved, RevisionConflict
from turnframe.store.search import MAX_PAGE, BadPageRequest, CasePage

__all__ = ["SearchTests"]

_ALPHABET = "aAnNsSiIlLvV0é É ß ẞİı\u00a0\u2003\t@.-"
"""Characters the property test builds texts from: cases, accents, ``str.lower``'s
multi-character results (``İ``), and Unicode whitespace that ``str.split`` splits on."""


async def _all(store: TurnStore, account: str, words: str, **kw: object) -> list[CaseRef]:
    """Return every page of ``find_cases`` (limit 2, so paging is exercised)."""
    out: list[CaseRef] = []
    after = None
    while True:
        page = await store.find_cases(account, words, limit=2, after=after, **kw)  # type: ignore[arg-type]
        out += [r.case for r in page.rows]
        if not page.more:
            return out
        after = page.cursor


def _scan_match(text: str, words: str) -> bool:
    """Today's directory rule, spelled out independently (``str.lower`` substrings)."""
    wanted = [w for w in words.lower().split() if w]
    return bool(wanted) and all(w in text.lower() for w in wanted)


class SearchTests(ConformanceBase):
    """Paged listing and word-search tests every store must pass."""

    def searched(
        self, key: str, case: CaseRef, text: str | None, *, expected: int = 0, **changes: Any
    ) -> CommitRequest:
        """Return :meth:`request` for ``case`` carrying ``search_text=text``."""
        return replace(self.request(key, case=case, expected=expected), search_text=text, **changes)

    async def _pages(self, store: TurnStore, limit: int, **kw: object) -> list[CasePage]:
        pages = []
        after = None
        while True:
            page = await store.list_cases_page(self.account, limit=limit, after=after, **kw)  # type: ignore[arg-type]
            pages.append(page)
            if not page.more:
                return pages
            after = page.cursor

    # listing -------------------------------------------------------------------------
    def test_list_page_keyset_matches_list_cases(self) -> None:
        """Pages of any size concatenate to ``list_cases``: same order, no duplicate, no gap."""

        async def body(store: TurnStore) -> None:
            for n in (3, 1, 5, 2, 4, 7, 6):
                await store.commit(self.request(f"k{n}", case=self.case(n)))
            await store.commit(self.request("o", case=self.case(9), account=self.other_account))
            everything = [r.case for r in await store.list_cases(self.account)]
            for limit in (1, 2, 3, 7, 8, MAX_PAGE):
                pages = await self._pages(store, limit)
                assert [r.case for p in pages for r in p.rows] == everything
                assert all(len(p.rows) == limit for p in pages[:-1])
                assert [p.more for p in pages] == [True] * (len(pages) - 1) + [False]
                assert all(p.cursor == p.cursors[-1] for p in pages if p.rows)
                assert all(len(p.cursors) == len(p.rows) for p in pages)
            rows = (await store.list_cases_page(self.account, limit=2)).rows
            assert rows == tuple((await store.list_cases(self.account))[:2])  # same rows

        self.run(body)

    def test_list_page_filters(self) -> None:
        """Workflow and case-id filters apply in storage; foreign and unknown ids drop out."""

        async def body(store: TurnStore) -> None:
            trips = [self.case(n) for n in (1, 2, 3)]
            travelers = [CaseRef("traveler", f"{self.ns}-p{n}") for n in (1, 2)]
            foreign = self.case(8)
            for n, case in enumerate([trips[0], travelers[0], trips[1], travelers[1], trips[2]]):
                await store.commit(self.request(f"k{n}", case=case))
            await store.commit(self.request("o", case=foreign, account=self.other_account))
            pages = await self._pages(store, 2, workflow="traveler")
            assert [r.case for p in pages for r in p.rows] == travelers
            wanted = {trips[2], travelers[0], foreign, self.case(99)}
            pages = await self._pages(store, 1, cases=wanted)
            assert [r.case for p in pages for r in p.rows] == [travelers[0], trips[2]]
            pages = await self._pages(store, 5, cases=wanted, workflow="trip")
            assert [r.case for p in pages for r in p.rows] == [trips[2]]
            empty = await store.list_cases_page(self.account, cases=())
            assert empty == CasePage(rows=())
            none = await store.list_cases_page(self.other_account, workflow="traveler")
            assert none.rows == () and not none.more and none.cursor is None

        self.run(body)

    def test_list_page_under_concurrent_inserts(self) -> None:
        """Cases inserted while paging never make a listed case repeat or go missing."""

        async def body(store: TurnStore) -> None:
            first = [self.case(n) for n in range(1, 9)]
            for n, case in enumerate(first):
                await store.commit(self.request(f"k{n}", case=case))
            seen: list[CaseRef] = []

            async def insert(n: int) -> None:
                await store.commit(self.request(f"new{n}", case=self.case(100 + n)))

            after = None
            n = 0
            while True:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(insert, n)
                    tg.start_soon(insert, n + 1)
                    page = await store.list_cases_page(self.account, limit=3, after=after)
                n += 2
                seen += [r.case for r in page.rows]
                if not page.more:
                    break
                after = page.cursor
            assert len(seen) == len(set(seen))
            assert [c for c in seen if c in first] == first

        self.run(body)

    def test_recent_page_holds_the_newest_changes_in_creation_order(self) -> None:
        """``recent=True``: the cases commits wrote last; indexing and refusals change nothing."""

        async def body(store: TurnStore) -> None:
            cases = [self.case(n) for n in range(1, 7)]
            for n, case in enumerate(cases):
                await store.commit(self.searched(f"k{n}", case, f"Ana {n}"))
            await store.commit(self.request("o", case=self.case(9), account=self.other_account))
            for case in (cases[4], cases[1]):  # changed after every other
                await store.commit(self.searched(f"u{case}", case, "Bruno", expected=1))

            async def recent(limit: int, account: str | None = None) -> CasePage:
                return await store.list_cases_page(
                    account or self.account, limit=limit, recent=True
                )

            page = await recent(3)
            assert [r.case for r in page.rows] == [cases[1], cases[4], cases[5]]
            assert page.more and page.cursor == page.cursors[-1]
            assert page.rows[0] == await store.load_case(cases[1])  # the stored row
            for limit in (6, 7, MAX_PAGE):
                whole = await recent(limit)
                assert [r.case for r in whole.rows] == cases and not whole.more
            assert [r.case for r in (await recent(5)).rows] == [cases[n] for n in (1, 2, 3, 4, 5)]
            foreign = await recent(5, self.other_account)
            assert [r.case for r in foreign.rows] == [self.case(9)] and not foreign.more
            # A case committed unindexed, then two others: indexing it is no change.
            late = self.case(7)
            await store.commit(self.searched("k7", late, None))
            for case in (cases[2], cases[3]):
                await store.commit(self.searched(f"v{case}", case, "Lima", expected=1))
            assert await store.index_case(late, 1, "Ana Late")
            assert [r.case for r in (await recent(2)).rows] == [cases[2], cases[3]]
            # A refused commit changes nothing either.
            with pytest.raises(RevisionConflict):
                await store.commit(self.searched("stale", cases[0], "Zed", expected=5))
            assert [r.case for r in (await recent(3)).rows] == [cases[2], cases[3], late]
            empty = await recent(4, f"nobody-{self.ns}")
            assert empty == CasePage(rows=())

        self.run(body)

    def test_bad_page_request(self) -> None:
        """A limit outside 1..MAX_PAGE or a cursor no store returned is refused, typed."""

        async def body(store: TurnStore) -> None:
            for limit in (0, -1, MAX_PAGE + 1):
                with pytest.raises(BadPageRequest, match="limit"):
                    await store.list_cases_page(self.account, limit=limit)
                with pytest.raises(BadPageRequest, match="limit"):
                    await store.find_cases(self.account, "ana", limit=limit)
            # past a 64-bit position, and past int()'s 4300-digit limit: refused, typed
            for cursor in ("x", "-1", "1.5", "", "9" * 30, str(2**63), "9" * 5000):
                with pytest.raises(BadPageRequest, match="after"):
                    await store.list_cases_page(self.account, after=cursor)
                with pytest.raises(BadPageRequest, match="after"):
                    await store.find_cases(self.account, "ana", after=cursor)
            with pytest.raises(BadPageRequest, match="limit"):
                await store.unindexed_cases(self.account, limit=0)
            with pytest.raises(BadPageRequest, match="limit"):
                await store.find_cases_each(self.account, ["ana"], limit=0)
            assert await store.find_cases_each(self.account, []) == ()
            with pytest.raises(BadPageRequest, match="limit"):
                await store.list_cases_page(self.account, limit=0, recent=True)
            # A recent page is one page of the whole account: no filter, no cursor.
            for kw in ({"workflow": "trip"}, {"cases": [self.case(1)]}, {"after": "1"}):
                with pytest.raises(BadPageRequest, match="recent"):
                    await store.list_cases_page(self.account, recent=True, **kw)
            with pytest.raises(BadPageRequest, match="recent"):
                await store.list_cases_page(self.account, recent=1)  # type: ignore[arg-type]

        self.run(body)

    # the word-search index --------------------------------------------------------------
    def test_find_cases_rule(self) -> None:
        """Every word must be a lower-cased substring of the text; scoped by account and workflow."""

        async def body(store: TurnStore) -> None:
            ana, mariana, lisbon = self.case(1), self.case(2), CaseRef("traveler", f"{self.ns}-3")
            await store.commit(self.searched("k1", ana, "Ana Silva ana.silva@example.com"))
            await store.commit(self.searched("k2", mariana, "Mariana Souza"))
            await store.commit(self.searched("k3", lisbon, "Lisbon Trip May 2026 maio 2026"))
            await store.commit(
                self.searched("o", self.case(4), "Ana Silva", account=self.other_account)
            )
            assert await _all(store, self.account, "ana") == [ana, mariana]
            assert await _all(store, self.account, "  SIL  ana ") == [ana]
            assert await _all(store, self.account, "a") == [ana, mariana, lisbon]  # "May"
            assert await _all(store, self.account, "ana.silva@example.com") == [ana]
            assert await _all(store, self.account, "ana zz") == []
            assert await _all(store, self.account, "may 2026") == [lisbon]
            assert await _all(store, self.account, "2026", workflow="trip") == []
            assert await _all(store, self.account, "") == []
            assert await _all(store, self.account, " \t ") == []
            assert await _all(store, self.account, "josé") == []
            assert await _all(store, self.other_account, "ana") == [self.case(4)]

        self.run(body)

    def test_find_cases_each_answers_each_mention_as_find_cases(self) -> None:
        """Many mentions at once: each page as ``find_cases`` gives it, ``more`` included."""

        async def body(store: TurnStore) -> None:
            names = ["Ana Silva", "Ana Souza", "Mariana Lopes", "Kim Lee", "Ana Lima"]
            for n, name in enumerate(names):
                await store.commit(self.searched(f"k{n}", self.case(n), name))
            await store.commit(
                self.searched("o", self.case(9), "Ana Silva", account=self.other_account)
            )
            mentions = ["ana", "silva", "zed", "", "kim lee", "ANA", "a", "lopes mariana"]
            pages = await store.find_cases_each(self.account, mentions, limit=2)
            assert len(pages) == len(mentions)
            for mention, page in zip(mentions, pages, strict=True):
                assert page == await store.find_cases(self.account, mention, limit=2), mention
            ana = pages[0]
            assert [r.case for r in ana.rows] == [self.case(0), self.case(1)] and ana.more
            assert [r.case for r in pages[1].rows] == [self.case(0)] and not pages[1].more
            assert pages[2] == pages[3] == CasePage(rows=())

        self.run(body)

    def test_find_cases_more_flag_keeps_ambiguity(self) -> None:
        """A page of one still says whether other cases match (the no-guess rule)."""

        async def body(store: TurnStore) -> None:
            for n in range(1, 6):
                await store.commit(self.searched(f"k{n}", self.case(n), f"Ana Silva {n}"))
            one = await store.find_cases(self.account, "ana silva", limit=1)
            assert [r.case for r in one.rows] == [self.case(1)] and one.more
            exact = await store.find_cases(self.account, "silva 3", limit=1)
            assert [r.case for r in exact.rows] == [self.case(3)] and not exact.more
            assert await _all(store, self.account, "ana") == [self.case(n) for n in range(1, 6)]
            rows = (await store.find_cases(self.account, "silva 2")).rows
            assert rows == (await store.load_case(self.case(2)),)

        self.run(body)

    def test_state_change_rewrites_terms(self) -> None:
        """A commit's new search text replaces the old one in the same transaction."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.searched("k1", case, "Lisbon Trip"))
            await store.commit(self.searched("k2", case, "Porto Trip", expected=1))
            assert await _all(store, self.account, "lisbon") == []
            assert await _all(store, self.account, "porto trip") == [case]
            await store.commit(self.searched("k3", case, "Porto Trip", expected=2))  # unchanged
            assert await _all(store, self.account, "porto") == [case]
            assert list(await store.unindexed_cases(self.account)) == []

        self.run(body)

    def test_refused_commit_leaves_terms_as_they_were(self) -> None:
        """A commit that fails after its writes began rolls its terms back with its state."""

        async def body(store: TurnStore) -> None:
            case = self.case()
            await store.commit(self.searched("k1", case, "Lisbon"))
            card = await store.create_interaction(self.card(case=None))
            assert await store.close_interaction(self.resolve(card))
            lost = self.searched("k2", case, "Porto", expected=1, interaction=self.resolve(card))
            with pytest.raises(InteractionAlreadyResolved):
                await store.commit(lost)
            with pytest.raises(RevisionConflict):
                await store.commit(self.searched("k3", case, "Porto", expected=5))
            assert await _all(store, self.account, "porto") == []
            assert await _all(store, self.account, "lisbon") == [case]
            row = await store.load_case(case)
            assert row is not None and row.revision == 1

        self.run(body)

    def test_unindexed_cases_and_index_case(self) -> None:
        """A commit without search text unindexes the case until ``index_case`` at its revision."""

        async def body(store: TurnStore) -> None:
            first, second = self.case(1), self.case(2)
            await store.commit(self.searched("k1", first, None))
            await store.commit(self.searched("k2", second, "Ana"))
            assert [r.case for r in await store.unindexed_cases(self.account)] == [first]
            assert list(await store.unindexed_cases(self.other_account)) == []
            assert await _all(store, self.account, "ana") == [second]
            assert not await store.index_case(first, 2, "Ana Lima")  # not at revision 2
            assert not await store.index_case(self.case(9), 1, "Ana")  # no such case
            assert await store.index_case(first, 1, "Ana Lima")
            assert list(await store.unindexed_cases(self.account)) == []
            assert await _all(store, self.account, "ana") == [first, second]
            await store.commit(self.searched("k3", second, None, expected=1))
            assert [r.case for r in await store.unindexed_cases(self.account)] == [second]
            assert await _all(store, self.account, "ana") == [first]
            assert await store.index_case(second, 2, "Bruno")
            assert await _all(store, self.account, "ana") == [first]
            assert await _all(store, self.account, "bruno") == [second]

        self.run(body)

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.differing_executors,  # each store class runs the same property
        ],
    )
    @given(
        texts=st.lists(
            st.tuples(st.sampled_from(["trip", "traveler"]), st.text(_ALPHABET, max_size=14)),
            max_size=8,
        ),
        mentions=st.lists(st.text(_ALPHABET, max_size=6), min_size=1, max_size=4),
        picks=st.lists(st.tuples(st.integers(0, 7), st.integers(0, 13), st.integers(1, 5))),
    )
    def test_indexed_lookup_equals_full_scan(
        self,
        texts: list[tuple[str, str]],
        mentions: list[str],
        picks: list[tuple[int, int, int]],
    ) -> None:
        """``find_cases`` answers what reading every case and matching in Python answers."""
        account = f"prop-{uuid.uuid4().hex[:12]}"
        # Mentions drawn from the texts themselves as well as at random.
        drawn = [texts[i % len(texts)][1][a : a + n] for i, a, n in picks if texts]

        async def body(store: TurnStore) -> None:
            by_case: dict[CaseRef, str] = {}
            for n, (workflow, text) in enumerate(texts):
                case = CaseRef(workflow, f"{account}-{n}")
                request = self.searched(f"{account}-{n}", case, text, account=account)
                await store.commit(request)
                by_case[case] = text
            await store.commit(
                self.searched(
                    f"{account}-x",
                    CaseRef("trip", f"{account}-x"),
                    " ".join(t for _, t in texts),
                    account="x" + account,
                )
            )
            listed = [r.case for r in await store.list_cases(account)]
            every = [*mentions, *drawn, " ".join(mentions)]
            # Every mention's first page at once: the same pages, one at a time.
            for limit in (1, 3):
                each = await store.find_cases_each(account, every, limit=limit)
                for mention, page in zip(every, each, strict=True):
                    assert page == await store.find_cases(account, mention, limit=limit), mention
            for mention in every:
                for only in [None, "trip"]:
                    expected = [
                        c
                        for c in listed
                        if (only is None or c.workflow == only) and _scan_match(by_case[c], mention)
                    ]
                    got = await _all(store, account, mention, workflow=only)
                    assert got == expected, (mention, only)

        self.run(body)
