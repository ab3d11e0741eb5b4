"""Which records a turn's brief shows (docs/adr/0020-what-a-brief-shows.md).

A brief shows the records a turn can be about, not the account:

1. the records in view of the surface that are the actor's (``in_view``);
2. the conversation's cases: the newest :attr:`BriefLimits.conversation` cases its turns
   resolved or committed (conversation state ``"cases"``, :func:`remembered_cases`);
3. the cases of the cards on screen and of the acts carried from earlier replies;
4. for each distinct word of the user's text of at least
   :attr:`BriefLimits.word_chars` characters, the records it finds
   (``CaseDirectory.find``'s rule, the store's word index ``TurnStore.find_cases``),
   when they are at most :attr:`BriefLimits.found` (the first :attr:`BriefLimits.words`
   such words); a shorter word, or one past that many, is looked up the same way only
   when it is a whole word of a record already briefed (``"Li"`` of ``"Li Silva"``),
   so that record is never the only one briefed of those it names. A word is taken
   with the punctuation the text wraps it in and, when that differs, without it (and
   without an English possessive ``'s``): ``"Ana,"``, ``"(Ana)"`` and ``"Ana's"`` are
   looked up as ``"ana"`` too (:func:`~turnframe.runtime.mentions.mention_words`), since the understander reads them
   as the name;
5. with ``in_view=None`` (the surface says nothing about what it shows), the *default
   view*: the actor's :attr:`BriefLimits.recent` most recently changed records, one
   recent page (``TurnStore.list_cases_page(recent=True)``). When that page holds the
   whole account, every record is briefed and counts as in view, exactly as the
   whole-account brief did (no word needs looking up). When the account holds more,
   the default view is treated like the conversation's cases (the user does not see
   it) and the brief is marked cut (:attr:`BriefScope.cut`, ``Brief.records_cut``).

A word that finds more records than that adds none, and every record it finds is left
out of the brief unless the surface shows it (in view: the user sees which record is
meant, as before): a brief never lists, by the runtime's choice, one record of several
the user's words name, so a mention of them is found by words and resolved against the
whole account (Ambiguous when several fit: the no-guess rule, I8). The word is recorded
in ``Brief.unlisted``. No step reads the whole account.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef, JSONValue, case_ref
from turnframe.core.interactions import Interaction
from turnframe.core.ports import CaseDirectory, DirectoryEntry
from turnframe.runtime.app import BriefLimits
from turnframe.runtime.mentions import bare, mention_words
from turnframe.runtime.plan import WaitingAct
from turnframe.runtime.records import builtin_directory
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.store.search import CasePage, matches

__all__ = [
    "CASES",
    "BriefScope",
    "brief_scope",
    "remember_cases",
    "remembered_cases",
]

CASES = "cases"
"""Conversation state: the cases the conversation's turns were on, oldest first (``"w/id"``)."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefScope:
    """The records a bounded brief shows.

    Attributes:
        entries: the records, each with its directory label, in brief order (in view,
            the conversation's newest first, cards, carried acts, the default view, found
            by words; a default view holding the whole account: creation order).
        unlisted: the words that find more records than a brief may add.
        cut: the default view was cut at :attr:`BriefLimits.recent` (the account holds
            records changed earlier that the brief does not list unless named).
    """

    entries: tuple[DirectoryEntry, ...]
    unlisted: tuple[str, ...] = ()
    cut: bool = False


def remembered_cases(state: Any) -> tuple[CaseRef, ...]:
    """Return the cases conversation ``state`` says the conversation was on, newest first.

    A malformed entry is skipped (the state is the runtime's own JSON).
    """
    raw = state.get(CASES) if isinstance(state, dict) else None
    out: list[CaseRef] = []
    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, str) and "/" in item:
            workflow, _, case_id = item.partition("/")
            out.append(case_ref(workflow, case_id))  # the instance the store's rows hold
    return tuple(reversed(out))


def remember_cases(state: Any, cases: Iterable[CaseRef], limit: int) -> list[JSONValue]:
    """Return conversation state's ``"cases"`` after a turn that was on ``cases``.

    The newest ``limit`` distinct cases, oldest first; a case this turn was on again
    moves to the newest end. Bounded, so no turn reads more of it as the conversation
    grows.
    """
    kept = [str(c) for c in reversed(remembered_cases(state))]
    for case in cases:
        text = str(case)
        if text in kept:
            kept.remove(text)
        kept.append(text)
    return list(kept[-limit:] if limit else [])


def _card_cases(cards: Sequence[Interaction]) -> list[CaseRef]:
    out: list[CaseRef] = []
    for card in cards:
        if card.spec.case is not None:
            out.append(card.spec.case)
        for option in card.spec.options:
            if option.case is not None:
                out.append(option.case)
        for pending in card.spec.pending:
            if pending.case is not None:
                out.append(pending.case)
            out.extend(pending.record_args.values())
    return out


def _carried_cases(waiting: Sequence[WaitingAct]) -> list[CaseRef]:
    out: list[CaseRef] = []
    for carried in waiting:
        if carried.pending.case is not None:
            out.append(carried.pending.case)
        out.extend(carried.pending.record_args.values())
    return out


async def brief_scope(
    *,
    directory: CaseDirectory,
    snapshots: TurnSnapshots,
    actor: Actor,
    text: str,
    in_view: Sequence[CaseRef] | None,
    conversation: Sequence[CaseRef],
    cards: Sequence[Interaction],
    waiting: Sequence[WaitingAct],
    limits: BriefLimits,
) -> BriefScope:
    """Return the records a turn briefs (this module's rules; ``None``: the default view).

    Every record returned has a snapshot in ``snapshots``; the reads are one recent page
    (``in_view=None`` only), one paged read of the named cases and one read of the word
    index for the long words of the text (and one for the short words a briefed record
    holds), whatever the size of the account and the length of the text.

    Raises:
        StoreError: a read failed.
    """
    default: list[CaseRef] = []
    cut = False
    if in_view is None:
        default, cut = await _default_view(directory, snapshots, actor, limits.recent)
        if not cut:  # the whole account: every record briefed, as in view (rule 5 above)
            await snapshots.settle()  # an adopter executor's own state (no-op otherwise)
            return BriefScope(entries=_entries(directory, snapshots, default))
    named = list(
        dict.fromkeys(
            [
                *(in_view or ()),
                *conversation[: limits.conversation],
                *_card_cases(cards),
                *_carried_cases(waiting),
            ]
        )
    )
    seen = set(default)
    stored = await _owned(directory, snapshots, actor, [c for c in named if c not in seen])
    stored.update(default)
    chosen: dict[CaseRef, None] = dict.fromkeys(c for c in named if c in stored)
    chosen.update(dict.fromkeys(default))
    unlisted: list[str] = []
    if text:
        reindex = getattr(directory, "reindex", None)
        if callable(reindex) and _over_this_store(directory, snapshots):
            await reindex(actor.account)  # a case committed without its words is found too
        words, chars = mention_words(text), limits.word_chars
        long = [w for w in words if len(w) >= chars]
        if len(long) > limits.words:
            long = long[: limits.words]
            kept = set(long)
            short = [w for w in words if w not in kept]
        else:
            short = [w for w in words if len(w) < chars]
        await _look_up(directory, snapshots, actor, long, limits.found, chosen, unlisted)
        # A short word, or one past ``limits.words``, is not looked up to add records;
        # but when it is a whole word of a record the brief lists ("Li"), it may be a
        # mention of that record, so it is looked up like the others: that record is
        # never listed alone among the records the word names (rule 2).
        if short:
            texts = [snapshots.folded_text(case) for case in chosen]
            named_short = _whole_words(short, texts)
            await _look_up(directory, snapshots, actor, named_short, limits.found, chosen, unlisted)
    if unlisted:
        hidden = tuple(unlisted)
        on_screen = set(in_view or ())
        for case in list(chosen):
            if case in on_screen:
                continue  # the surface shows it: the user sees which record is meant
            text_of = snapshots.folded_text(case)
            if any(matches(text_of, (w,)) for w in hidden):
                del chosen[case]  # listed alone among records the words name: never
    await snapshots.settle()  # an adopter executor's own state (no-op otherwise)
    return BriefScope(
        entries=_entries(directory, snapshots, chosen),
        unlisted=tuple(unlisted),
        cut=cut,
    )


def _whole_words(words: Sequence[str], texts: Iterable[str]) -> list[str]:
    """Return those of ``words`` that are a whole word of one of the folded ``texts``.

    A whole word is a whitespace-separated token, or one without the punctuation that
    wraps it (:func:`~turnframe.runtime.mentions.bare`: ``"li"`` of ``"Silva, Li"``).
    Each text's whole words are :func:`_whole`'s (a text of up to
    :data:`_CACHED_TEXT_CHARS` characters is split once however many turns brief its
    record). In the order of ``words``.
    """
    left = set(words)
    for text in texts:
        if not left:
            break
        cached = len(text) <= _CACHED_TEXT_CHARS
        left.difference_update(left.intersection(_whole_cached(text) if cached else _whole(text)))
    return [w for w in words if w not in left]


_CACHED_TEXT_CHARS = 512
"""The longest folded text whose whole words :func:`_whole_words` keeps (longer: split each time)."""


def _whole(text: str) -> frozenset[str]:
    """Return the whole words of a folded text: its tokens and their bare forms (pure)."""
    tokens = text.split()
    return frozenset([*tokens, *(bare(t) for t in tokens if not t.isalnum())])


_whole_cached = lru_cache(maxsize=1024)(_whole)
""":func:`_whole`, kept for 1,024 texts of up to :data:`_CACHED_TEXT_CHARS` characters: the
records a brief shows are mostly the ones it showed the turn before (the default view,
the conversation's), and the memory held stays bounded."""


def _entries(
    directory: CaseDirectory,
    snapshots: TurnSnapshots,
    cases: Iterable[CaseRef],
) -> tuple[DirectoryEntry, ...]:
    """Return the snapshotted ``cases`` with their candidate labels, in order.

    A label is in the directory's locale (``"en"`` when it names none), as the
    directory lists it. :meth:`TurnSnapshots.label` answers it: the label the snapshot
    was taken with when that locale is the turn's, else ``candidate_label`` of the
    snapshot's state in the directory's locale (the same value either way, a label being
    a function of the case, the state and the locale; docs/adr/0020-what-a-brief-shows.md
    rule 8).
    """
    locale = str(getattr(directory, "locale", "en"))
    label = snapshots.label
    return tuple(DirectoryEntry(case=case, label=label(case, locale)) for case in cases)


async def _default_view(
    directory: CaseDirectory, snapshots: TurnSnapshots, actor: Actor, limit: int
) -> tuple[list[CaseRef], bool]:
    """Return (the actor's ``limit`` most recently changed records, whether more exist).

    One recent page of the store, in creation order; each row becomes the case's
    snapshot. An adopter's directory is asked ``authorize`` for each (it decides what
    the actor may see). ``limit`` 0 reads nothing and is always cut.
    """
    if limit == 0:
        return [], True
    page = await snapshots.store.list_cases_page(actor.account, recent=True, limit=limit)
    mine = _over_this_store(directory, snapshots)
    texts = _texts(page)
    out = []
    for row, folded in zip(page.rows, texts, strict=True):
        if mine or await directory.authorize(actor, row.case):
            out.append(snapshots.add_row(row, folded=folded).case)
    return out, page.more


def _texts(page: CasePage) -> Sequence[str | None]:
    """Return the page's folded texts, one per row (``None`` where the store did not say)."""
    return page.texts if len(page.texts) == len(page.rows) else (None,) * len(page.rows)


async def _look_up(
    directory: CaseDirectory,
    snapshots: TurnSnapshots,
    actor: Actor,
    words: Sequence[str],
    limit: int,
    chosen: dict[CaseRef, None],
    unlisted: list[str],
) -> None:
    """Add the records each word finds to ``chosen``, or the word to ``unlisted`` when too many.

    Over this store the words are looked up together (``TurnStore.find_cases_each``: one
    read however many words); an adopter's directory is asked ``find`` per word. With
    ``limit`` 0 a word adds none, and one that finds any record is unlisted (it hides
    them: a record the runtime brought in is never listed alone among those it names).
    """
    if not words:
        return
    each = getattr(snapshots.store, "find_cases_each", None)
    if callable(each) and _over_this_store(directory, snapshots):
        # The store's word index, the directory's rule; a word that finds more than
        # ``limit`` records is told by ``more``, and its rows are not even typed.
        pages = await each(actor.account, list(words), limit=max(1, limit))
        add_row = snapshots.add_row
        # Most words find nothing: only the pages that found a record are looked at (the
        # strict zip raises before any record is added when the pages do not pair up).
        for word, page in [(w, p) for w, p in zip(words, pages, strict=True) if p.rows or p.more]:
            if page.more or len(page.rows) > limit:
                unlisted.append(word)
            else:
                for row, folded in zip(page.rows, _texts(page), strict=True):
                    chosen[add_row(row, folded=folded).case] = None
        return
    for word in words:
        found, more = await _found(directory, snapshots, actor, word, limit)
        if more:
            unlisted.append(word)
        else:
            chosen.update(dict.fromkeys(found))


async def _owned(
    directory: CaseDirectory, snapshots: TurnSnapshots, actor: Actor, cases: list[CaseRef]
) -> set[CaseRef]:
    """Return those of ``cases`` that are stored cases of the actor's account (snapshotted)."""
    if not cases:
        return set()
    if _over_this_store(directory, snapshots):
        return set(await snapshots.load_rows(cases))
    out = set()
    for case in cases:  # an adopter's directory decides what the actor may see
        if await directory.authorize(actor, case):
            snap = await snapshots.load(case)
            if snap.state_json is not None:
                out.add(case)
    return out


async def _found(
    directory: CaseDirectory,
    snapshots: TurnSnapshots,
    actor: Actor,
    word: str,
    limit: int,
) -> tuple[list[CaseRef], bool]:
    """Return (at most ``limit`` records ``word`` finds, whether it finds more)."""
    seek = getattr(snapshots.store, "find_cases", None)
    if callable(seek) and _over_this_store(directory, snapshots):
        # The store's word index, the directory's rule; a word that finds more than
        # ``limit`` records is told by ``more``, and its rows are not even typed.
        page = await seek(actor.account, word, limit=max(1, limit))
        if page.more or len(page.rows) > limit:
            return [], True
        return [snapshots.add_row(row).case for row in page.rows], False
    cases = list(dict.fromkeys(await directory.find(actor, None, word)))
    if len(cases) > limit:
        return [], True
    out = []
    for case in cases:
        if await directory.authorize(actor, case):
            await snapshots.load(case)
            out.append(case)
    return out, False


def _over_this_store(directory: CaseDirectory, snapshots: TurnSnapshots) -> bool:
    """Whether the turn may read the store's index for ``directory`` (its exact default)."""
    return builtin_directory(directory, snapshots.store)
