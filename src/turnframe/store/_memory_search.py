"""The in-memory store's case positions and word-search index (:mod:`turnframe.store.search`).

Held by :class:`turnframe.store.memory.InMemoryStore` and mutated only under its lock, in
the same critical section as the case's state, so a reader never sees a state and terms
of different commits.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Collection

from turnframe.core.ids import CaseRef
from turnframe.store.base import CaseRow
from turnframe.store.search import PROBE, CasePage, fold, matches, query_keys, query_words, terms

__all__ = ["MemorySearchIndex"]


class MemorySearchIndex:
    """Creation positions, change order, folded search texts and postings ``(account, term) → positions``."""

    def __init__(self) -> None:
        self._next = 0
        self.pos: dict[CaseRef, int] = {}
        self._case_at: dict[int, CaseRef] = {}
        self._text: dict[CaseRef, str | None] = {}  # None: unindexed
        self._postings: dict[tuple[str, str], set[int]] = {}
        self._unindexed: dict[str, set[CaseRef]] = {}  # by account
        # By account, every case once, oldest change first (a dict keeps insertion order).
        self._changed: dict[str, dict[CaseRef, None]] = {}

    def created(self, account: str, case: CaseRef) -> None:
        """Give a new case the next creation position (unindexed until :meth:`put`)."""
        self._next += 1
        self.pos[case] = self._next
        self._case_at[self._next] = case
        self._text[case] = None
        self._unindexed.setdefault(account, set()).add(case)
        self._changed.setdefault(account, {})[case] = None

    def put(
        self, account: str, case: CaseRef, search_text: str | None, *, touch: bool = True
    ) -> None:
        """Replace the case's search text (``None``: unindexed) and its postings.

        ``touch`` (a commit wrote the case) makes it the account's most recently changed
        case; indexing an unindexed case passes ``False`` (no change of the case).
        """
        pos = self.pos[case]
        if touch:
            order = self._changed.setdefault(account, {})
            order.pop(case, None)
            order[case] = None
        before = self._text.get(case)
        after = None if search_text is None else fold(search_text)
        if before == after:
            return
        old = frozenset() if before is None else terms(before)
        new = frozenset() if after is None else terms(after)
        for term in old - new:
            self._postings[(account, term)].discard(pos)
        for term in new - old:
            self._postings.setdefault((account, term), set()).add(pos)
        self._text[case] = after
        if after is None:
            self._unindexed.setdefault(account, set()).add(case)
        else:
            self._unindexed.get(account, set()).discard(case)

    def unindexed(self, account: str, limit: int) -> list[CaseRef]:
        """Return up to ``limit`` of the account's cases with no search text, oldest first."""
        return sorted(self._unindexed.get(account, ()), key=self.pos.__getitem__)[:limit]

    def page(
        self,
        cases: list[CaseRef],
        row: Callable[[CaseRef], CaseRow],
        *,
        owned: Callable[[CaseRef], bool],
        workflow: str | None,
        only: Collection[CaseRef] | None,
        limit: int,
        start: int,
    ) -> CasePage:
        """Return a page of ``cases`` (the account's, in creation order) after ``start``.

        ``owned`` tells whether a case of ``only`` is the account's.
        """
        if only is not None:
            scan = sorted((c for c in set(only) if owned(c)), key=self.pos.__getitem__)
        else:
            scan = cases[bisect.bisect_right(cases, start, key=self.pos.__getitem__) :]
        picked = []
        for case in scan:
            if self.pos[case] > start and (workflow is None or case.workflow == workflow):
                picked.append(case)
                if len(picked) > limit:
                    break
        return self._cut(picked, row, limit)

    def recent(self, account: str, row: Callable[[CaseRef], CaseRow], limit: int) -> CasePage:
        """Return the account's ``limit`` most recently changed cases, in creation order.

        ``more`` when cases changed earlier exist; the cost is the page, not the account.
        """
        newest = list(itertools.islice(reversed(self._changed.get(account, {})), limit + 1))
        page = sorted(newest[:limit], key=self.pos.__getitem__)
        cursors = tuple(str(self.pos[c]) for c in page)
        return CasePage(
            rows=tuple(row(c) for c in page),
            more=len(newest) > limit,
            cursor=cursors[-1] if cursors else None,
            cursors=cursors,
        )

    def find(
        self,
        account: str,
        words: str,
        row: Callable[[CaseRef], CaseRow],
        *,
        workflow: str | None,
        limit: int,
        start: int,
    ) -> CasePage:
        """Return a page of the account's indexed cases matching ``words`` after ``start``."""
        wanted = query_words(words)
        keys = query_keys(wanted)
        if not keys:
            return CasePage(rows=())
        postings = [self._postings.get((account, k), set()) for k in keys]
        seek = min(postings, key=lambda p: min(len(p), PROBE))
        picked = []
        for pos in sorted(p for p in seek if p > start):
            case = self._case_at[pos]
            text = self._text.get(case)
            if workflow is not None and case.workflow != workflow:
                continue
            if text is not None and matches(text, wanted):
                picked.append(case)
                if len(picked) > limit:
                    break
        return self._cut(picked, row, limit)

    def _cut(
        self, picked: list[CaseRef], row: Callable[[CaseRef], CaseRow], limit: int
    ) -> CasePage:
        page = picked[:limit]
        cursors = tuple(str(self.pos[c]) for c in page)
        return CasePage(
            rows=tuple(row(c) for c in page),
            more=len(picked) > limit,
            cursor=cursors[-1] if cursors else None,
            cursors=cursors,
        )
