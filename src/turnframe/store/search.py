"""Paged case listing and the word-search index every store keeps (docs/architecture.md "Stores").

A turn must not read the whole account to find the records it is about, so every store
answers two paged queries in its own storage: the account's cases filtered by workflow
and by a set of case ids (:meth:`~turnframe.store.base.TurnStore.list_cases_page`), and
the cases whose search text holds every word of a mention
(:meth:`~turnframe.store.base.TurnStore.find_cases`).

The matching rule is the one :class:`~turnframe.runtime.executor.StoredCaseDirectory`
has always applied: the search text and the words are lower-cased with ``str.lower``
(no accent folding, no locale: ``"jose"`` does not find ``"José"``), the words are split
on whitespace, and a case matches when every word is a substring of its search text
(``"sil"`` finds ``"Ana Silva"``; ``"ana"`` also finds ``"Mariana"``). No words: no match.

The index holds, per case, its folded text and its *terms*: every substring of one to
three characters of each whitespace-separated token of that text (:func:`terms`). A
word of up to three characters is itself a term of every case that holds it; a longer
word's trigrams are terms of every case that holds it. A store seeks the postings of
one such *key* (:func:`query_keys`), which every match carries, then checks the whole
rule on the folded text, so an answer is exact whatever key it starts from, and it
never reads or decodes a case that does not match. Which key: the one with the fewest
postings, counted up to :data:`PROBE` per key, so the cost of a lookup is bounded by
the rarest key's postings and the page, not by the account.

The one departure from ``str.lower``: a NUL character is stored as a space (PostgreSQL
text cannot hold NUL), in the text and in the words alike.

Pages are in creation order. A cursor is opaque text: pass a page's ``cursor`` as the
next call's ``after``.

*Recent* pages (``list_cases_page(account, recent=True, limit=n)``) hold the account's
``n`` cases changed most recently: every store keeps, per case, a *change position*
drawn from a rising counter when a commit writes the case (indexing an unindexed case is
no change), and seeks the newest positions on an index ``(account, change position)``,
so the read is one bounded seek whatever the size of the account. The rows are still
returned in creation order; ``more`` says that cases changed earlier exist. It is the
default view of a brief (docs/adr/0020-what-a-brief-shows.md) and is one page, never
paged: ``after``, ``cases`` and ``workflow`` are refused with it. A case stored before
change positions existed has its creation position as its change position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from turnframe.core.dataclass_init import fast_init
from turnframe.store.base import CaseRow
from turnframe.store.errors import StoreError

__all__ = [
    "DEFAULT_PAGE",
    "MAX_PAGE",
    "MAX_POSITION",
    "PROBE",
    "BadPageRequest",
    "CasePage",
    "check_page",
    "check_recent",
    "fold",
    "matches",
    "query_keys",
    "query_words",
    "rarest",
    "terms",
]

DEFAULT_PAGE = 100
"""The page size when the caller names none."""

MAX_PAGE = 10_000
"""The largest page a store returns in one call."""

PROBE = 64
"""How many postings of each key a store counts at most when choosing the key to seek."""

MAX_POSITION = 2**63 - 1
"""The largest creation position a cursor may name (a signed 64-bit column on every store)."""


class BadPageRequest(StoreError, ValueError):
    """A page was asked for with a limit outside ``1..MAX_PAGE`` or a malformed cursor.

    Nothing is read; the message says which argument is wrong.
    """


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CasePage:
    """One page of cases, in creation order.

    Attributes:
        rows: at most the asked-for ``limit`` cases.
        more: ``True`` when cases beyond this page match (ask again with ``after=cursor``).
            A mention is ambiguous when ``len(rows) > 1`` or ``more``, whatever the limit.
        cursor: the position after the last row (``None`` when ``rows`` is empty).
        cursors: the position after each row (``cursors[-1] == cursor``), for a caller
            that keeps only some rows and must resume after the last one it kept.
        texts: the folded search text the store's index holds for each row, of the
            row's own commit (``None``: the case is unindexed), or ``()`` when the
            store does not say; a caller that needs a row's text (the brief's word
            checks, ``turnframe.runtime.scope``) uses it instead of computing it.
            Not compared: two pages of the same rows are equal whatever they say.
    """

    rows: tuple[CaseRow, ...]
    more: bool = False
    cursor: str | None = None
    cursors: tuple[str, ...] = ()
    texts: tuple[str | None, ...] = field(default=(), compare=False)


def fold(text: str) -> str:
    """Return ``text`` as the index holds it: ``str.lower``, NUL stored as a space."""
    return text.lower().replace("\x00", " ")


def query_words(words: str) -> tuple[str, ...]:
    """Return the distinct folded words of a mention, in order (``()``: nothing to find)."""
    return tuple(dict.fromkeys(fold(words).split()))


def terms(folded: str) -> frozenset[str]:
    """Return the index terms of a folded search text.

    Args:
        folded: the output of :func:`fold`.

    Returns:
        Every substring of one to three characters of each whitespace-separated token.
    """
    out: set[str] = set()
    for token in folded.split():
        n = len(token)
        for i in range(n):
            out.add(token[i])
            if i + 2 <= n:
                out.add(token[i : i + 2])
            if i + 3 <= n:
                out.add(token[i : i + 3])
    return frozenset(out)


def query_keys(words: tuple[str, ...]) -> tuple[str, ...]:
    """Return the terms every case matching all of ``words`` carries (sorted, distinct).

    A word of up to three characters is its own key; a longer word gives its trigrams.
    """
    keys: set[str] = set()
    for word in words:
        if len(word) <= 3:
            keys.add(word)
        else:
            keys.update(word[i : i + 3] for i in range(len(word) - 2))
    return tuple(sorted(keys))


def rarest(keys: Sequence[str], counts: Mapping[str, int]) -> str | None:
    """Return the key with the fewest postings counted (ties: the first in sort order).

    ``None`` when there is no key or one has no posting: nothing can match.
    """
    if not keys or min(counts.get(k, 0) for k in keys) == 0:
        return None
    return min((counts[k], k) for k in keys)[1]


def matches(folded: str, words: tuple[str, ...]) -> bool:
    """Return whether a folded search text holds every word (the directory's rule)."""
    return bool(words) and all(w in folded for w in words)


def check_page(limit: int, after: str | None) -> int:
    """Return the position encoded by ``after`` (0 for the start) after checking ``limit``.

    Raises:
        BadPageRequest: ``limit`` is not an int in ``1..MAX_PAGE``, or ``after`` is not
            a cursor a store returned (decimal digits naming a position up to
            :data:`MAX_POSITION`; a longer one would overflow the store's integer column).
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise BadPageRequest(f"limit must be an int from 1 to {MAX_PAGE}, got {limit!r}")
    if after is None:
        return 0
    if (
        not isinstance(after, str)
        or not after.isascii()
        or not after.isdigit()
        or len(after) > len(str(MAX_POSITION))
        or int(after) > MAX_POSITION
    ):
        shown = after[:40] + "..." if isinstance(after, str) and len(after) > 40 else after
        raise BadPageRequest(f"after must be a cursor from a previous page, got {shown!r}")
    return int(after)


def check_recent(
    recent: bool, workflow: str | None, cases: object | None, after: str | None
) -> bool:
    """Return ``recent`` after checking it is combined with nothing a recent page refuses.

    Raises:
        BadPageRequest: ``recent`` is not a bool, or is true together with ``workflow``,
            ``cases`` or ``after`` (a recent page is the account's newest changes, one
            page; see the module docstring).
    """
    if not isinstance(recent, bool):
        raise BadPageRequest(f"recent must be a bool, got {recent!r}")
    if recent and (workflow is not None or cases is not None or after is not None):
        raise BadPageRequest(
            "recent=True lists the account's most recently changed cases in one page;"
            " it takes no workflow, cases or after"
        )
    return recent
