"""The default executor and case directory, over the Turnframe store.

See docs/architecture.md "Workflows", "Stores", "What you write".

:class:`StoredStateExecutor` keeps a workflow's state in the store's case table and applies
commands with the workflow's pure ``execute``; the store commits state, events, journal,
card resolution and outbox rows in one transaction. An adopter whose records live elsewhere
implements :class:`~turnframe.core.ports.WorkflowExecutor` instead.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple

from turnframe.core.commands import CommandEnvelope
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.ports import DirectoryEntry, LoadedCase, Transition
from turnframe.core.workflow import Executed, WorkflowRegistry
from turnframe.runtime.mention_identity import identify, seek
from turnframe.runtime.ports import Clock, SystemClock
from turnframe.runtime.transition import (
    _UNTYPED,
    IndexedTransition,
    apply_commands,
    journal_commit,
    search_text_of,
)
from turnframe.store.base import CaseRow, TurnStore
from turnframe.store.search import DEFAULT_PAGE, MAX_PAGE, check_page

__all__ = [
    "DirectoryPage",
    "IndexedTransition",
    "Listed",
    "StoredCaseDirectory",
    "StoredStateExecutor",
    "apply_commands",
    "journal_commit",
    "search_text_of",
]


class StoredStateExecutor:
    """Loads cases from the store and applies commands with the workflows' pure ``execute``.

    Args:
        registry: the workflows.
        store: the store holding case state.
        today: a callable giving the turn's today (validation reads it).
    """

    def __init__(self, registry: WorkflowRegistry, store: TurnStore, today: date) -> None:
        self._registry = registry
        self._store = store
        self.today = today
        self.turn_id = ""
        self.locale = "en"
        """The turn's locale: a refusal at execution time is worded in it."""
        self._typed: dict[CaseRef, tuple[object, Any]] = {}
        self._executed: dict[int, Executed] = {}

    def know(self, case: CaseRef, state: JSONObject | None, typed: Any) -> None:
        """Tell :meth:`apply` that ``typed`` is the workflow's typed state of ``state``.

        The policy step passes each batch's snapshot (state and typed state read from
        one row): :meth:`apply` to that very ``state`` object then skips typing it again.
        Any other state (another object, even an equal one) is typed as usual.
        """
        self._typed[case] = (state, typed)

    def know_executed(self, executed: Iterable[Executed]) -> None:
        """Tell :meth:`apply` what the reducer's compilations executed (``Plan.executed``).

        ``executed``: the plan's :class:`~turnframe.core.workflow.Executed` entries, kept
        by ``id`` of their command (each entry holds its command, so the id stays its
        own). :func:`apply_commands` takes an entry instead of validating and executing the
        same command again only where :class:`~turnframe.core.workflow.Executed` says it
        may (the very same command and state objects, an equal context, a kit workflow).
        """
        self._executed = {id(e.command): e for e in executed}

    async def load(self, case: CaseRef) -> LoadedCase:
        """Return the stored state and revision (``None`` and 0 when absent)."""
        row = await self._store.load_case(case)
        if row is None:
            return LoadedCase(case=case, state=None, revision=0)
        return LoadedCase(case=case, state=row.state, revision=row.revision)

    async def apply(self, loaded: LoadedCase, commands: Sequence[CommandEnvelope]) -> Transition:
        """Validate and apply ``commands`` in order to ``loaded``.

        Returns an :class:`IndexedTransition`: the new state's search text rides along
        for the commit (``search_text_of``).

        Raises:
            CommandRejected: when a command does not validate against the state.
            InvariantBroken: when an envelope's origin does not satisfy its policy (I4, I17)
                or an envelope targets another case.
        """
        known = self._typed.get(loaded.case)
        return apply_commands(
            self._registry,
            loaded,
            commands,
            today=self.today,
            turn_id=self.turn_id,
            locale=self.locale,
            typed=known[1] if known is not None and known[0] is loaded.state else _UNTYPED,
            executed=self._executed,
        )


class Listed(NamedTuple):
    """One case a directory page holds: its entry, the stored row and the typed state.

    Unpacks as ``(entry, row, typed)``, the shape :meth:`StoredCaseDirectory.list_with_states`
    has always returned, so the runtime builds the turn's snapshots from it without a
    second read.
    """

    entry: DirectoryEntry
    row: CaseRow
    typed: Any


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectoryPage:
    """One page of a directory's answer, in creation order.

    Attributes:
        items: at most the asked-for ``limit`` cases.
        more: ``True`` when more cases answer beyond this page. A mention is ambiguous
            when ``len(items) > 1 or more`` (the no-guess rule holds on a page).
        cursor: pass as ``after`` for the next page (``None`` when ``items`` is empty).
    """

    items: tuple[Listed, ...] = ()
    more: bool = False
    cursor: str | None = None

    @property
    def cases(self) -> tuple[CaseRef, ...]:
        """The page's cases, in order."""
        return tuple(item.entry.case for item in self.items)


class StoredCaseDirectory:
    """A case directory over the store's case table (docs/architecture.md "One turn" step 6).

    Lists an account's cases with the workflows' candidate labels, and finds one by the words
    of ``search_text``: every identifying word must appear, case-insensitively, as
    :mod:`turnframe.store.search` defines; articles, determiners and kind words identify
    nothing, and the kind alone names every record of it (:mod:`.mention_identity`).
    Both are answered by the store a page at a time: a turn never reads the whole account.

    Cases the store holds no search text for (committed without ``search_text``, or
    stored before the index existed) are indexed before each lookup
    (:meth:`reindex`), so an answer is the same as matching every case's text.

    Args:
        registry: the workflows.
        store: the store.
        locale: the labels' locale.
        clock: the day views are projected for when ``find`` is not told the turn's
            ``today`` (default: the system clock).
    """

    def __init__(
        self,
        registry: WorkflowRegistry,
        store: TurnStore,
        locale: str = "en",
        *,
        clock: Clock | None = None,
    ) -> None:
        self._registry = registry
        self._store = store
        self.locale = locale
        self._clock: Clock = clock or SystemClock()

    @property
    def store(self) -> TurnStore:
        """The store whose case table this directory reads."""
        return self._store

    async def list_for_actor(self, actor: Actor) -> Sequence[DirectoryEntry]:
        """Return every case of the actor's account, in creation order, with labels."""
        return [entry for entry, _, _ in await self.list_with_states(actor)]

    async def list_with_states(self, actor: Actor) -> list[tuple[DirectoryEntry, CaseRow, Any]]:
        """Return :meth:`list_for_actor`'s entries with the row and typed state read for each.

        Every case of the account, read a page at a time; prefer :meth:`page_with_states`
        with a filter on the turn path.
        """
        out: list[tuple[DirectoryEntry, CaseRow, Any]] = []
        after: str | None = None
        while True:
            page = await self.page_with_states(actor, limit=MAX_PAGE, after=after)
            out.extend(page.items)
            if not page.more:
                return out
            after = page.cursor

    async def page_with_states(
        self,
        actor: Actor,
        *,
        workflow: str | None = None,
        cases: Collection[CaseRef] | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> DirectoryPage:
        """Return one page of the actor's cases with labels, rows and typed states.

        Args:
            actor: whose account is listed.
            workflow: only this workflow's cases.
            cases: only these cases (the surface's ``in_view``, the conversation's
                cases, the cards' cases); a case of another account is left out.
            limit: the page size, ``1..MAX_PAGE`` of :mod:`turnframe.store.search`.
            after: a previous page's ``cursor``.

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed.
            RegistryError: a listed case's workflow is not registered.
        """
        page = await self._store.list_cases_page(
            actor.account, workflow=workflow, cases=cases, limit=limit, after=after
        )
        items = tuple(self._listed(row) for row in page.rows)
        return DirectoryPage(items=items, more=page.more, cursor=page.cursor)

    async def find(
        self,
        actor: Actor,
        workflow: str | None,
        words: str,
        *,
        operation: str | None = None,
        argument: str | None = None,
        today: date | None = None,
    ) -> Sequence[CaseRef]:
        """Return the actor's cases whose search text holds every identifying word of ``words``.

        Articles, determiners and ``workflow``'s kind words identify nothing; a mention
        of the kind alone names every case of it (:mod:`~turnframe.runtime.mention_identity`).

        With ``operation`` (and ``argument``), only the cases that fit it, as
        :class:`~turnframe.core.ports.CaseDirectory` documents: a target must offer the
        operation now and not be terminal; a record argument's value must not be
        terminal (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). ``today``
        is the day views are projected for (default: the system date). Every match, in
        creation order (:meth:`find_page` gives one page).
        """
        found: list[CaseRef] = []
        after: str | None = None
        while True:
            page = await self.find_page(
                actor,
                workflow,
                words,
                operation=operation,
                argument=argument,
                today=today,
                limit=DEFAULT_PAGE,
                after=after,
            )
            found.extend(page.cases)
            if not page.more:
                return found
            after = page.cursor

    async def find_page(
        self,
        actor: Actor,
        workflow: str | None,
        words: str,
        *,
        operation: str | None = None,
        argument: str | None = None,
        today: date | None = None,
        limit: int = DEFAULT_PAGE,
        after: str | None = None,
    ) -> DirectoryPage:
        """Return one page of :meth:`find`'s answer, with the rows and typed states read.

        The store seeks its word index (``TurnStore.find_cases``); only the cases it
        returns are decoded and, with ``operation``, projected to check they fit. With
        ``limit=1``, ``more`` still tells one match from several (no-guess rule).

        Raises:
            BadPageRequest: ``limit`` or ``after`` is malformed.
            RegistryError: a matching case's workflow is not registered.
        """
        check_page(limit, after)
        mention = identify(self._registry, words, workflow)
        if not mention.names_any:
            return DirectoryPage()
        await self.reindex(actor.account)
        day = today or self._clock.today()
        items: list[Listed] = []
        cursors: list[str] = []
        while len(items) <= limit:
            size = min(MAX_PAGE, limit + 1 - len(items))
            page = await seek(self._store, mention, actor.account, limit=size, after=after)
            for row, cursor in zip(page.rows, page.cursors, strict=True):
                listed = self._listed(row)
                if operation is None or self._fits(listed, actor, operation, argument, day):
                    items.append(listed)
                    cursors.append(cursor)
            if not page.more:
                break
            after = page.cursor
        kept = items[:limit]
        return DirectoryPage(
            items=tuple(kept),
            more=len(items) > limit,
            cursor=cursors[len(kept) - 1] if kept else None,
        )

    async def reindex(self, account: str, *, batch: int = 500) -> int:
        """Index every case of ``account`` the store holds no search text for.

        Computes each one's ``search_text`` from its typed state and stores it if the
        case has not moved on meanwhile (its newer commit then carries its own). The
        cost is one indexed read when nothing is missing.

        Returns:
            How many cases were indexed.

        Raises:
            RegistryError: an unindexed case's workflow is not registered.
        """
        done = 0
        tried: set[tuple[CaseRef, int]] = set()
        while True:
            rows = [
                r
                for r in await self._store.unindexed_cases(account, limit=batch)
                if (r.case, r.revision) not in tried
            ]
            if not rows:
                return done
            for row in rows:
                tried.add((row.case, row.revision))
                erased = self._registry.workflow(row.case.workflow)
                text = erased.definition.search_text(erased.typed(row.state))
                done += await self._store.index_case(row.case, row.revision, text)

    def _listed(self, row: CaseRow) -> Listed:
        workflow = self._registry.workflow(row.case.workflow)
        typed = workflow.typed(row.state)
        label = workflow.definition.candidate_label(row.case, typed, self.locale)
        return Listed(DirectoryEntry(case=row.case, label=label), row, typed)

    def _fits(
        self, listed: Listed, actor: Actor, operation: str, argument: str | None, day: date
    ) -> bool:
        erased = self._registry.workflow(listed.row.case.workflow)
        view = erased.definition.project(listed.typed, day)
        if argument is not None:
            return not erased.terminal(view)
        return erased.fits(view, actor, operation)

    async def authorize(self, actor: Actor, case: CaseRef) -> bool:
        """Return whether the case exists and belongs to the actor's account.

        An absent case is not addressable: new cases are minted by the runtime, never
        named by a client (a UI ``origin_ref`` cannot choose a case id).
        """
        row = await self._store.load_case(case)
        return row is not None and row.account == actor.account
