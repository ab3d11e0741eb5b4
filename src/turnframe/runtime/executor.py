"""The default executor and case directory, over the Turnframe store (guide §4, §11, §13).

:class:`StoredStateExecutor` keeps a workflow's state in the store's case table and applies
commands with the workflow's pure ``execute``; the store commits state, events, journal,
card resolution and outbox rows in one transaction. An adopter whose records live elsewhere
implements :class:`~turnframe.core.ports.WorkflowExecutor` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from turnframe.core.commands import CommandEnvelope
from turnframe.core.errors import InvariantBroken
from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.ports import DirectoryEntry, LoadedCase, Transition
from turnframe.core.workflow import ExecutionContext, OutboxDraft, WorkflowRegistry
from turnframe.runtime.errors import CommandRejected
from turnframe.runtime.policy import origin_satisfies
from turnframe.runtime.ports import Clock, SystemClock
from turnframe.store.base import CaseRow, TurnStore

__all__ = ["StoredCaseDirectory", "StoredStateExecutor"]


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

    async def load(self, case: CaseRef) -> LoadedCase:
        """Return the stored state and revision (``None`` and 0 when absent)."""
        row = await self._store.load_case(case)
        if row is None:
            return LoadedCase(case=case, state=None, revision=0)
        return LoadedCase(case=case, state=row.state, revision=row.revision)

    async def apply(self, loaded: LoadedCase, commands: Sequence[CommandEnvelope]) -> Transition:
        """Validate and apply ``commands`` in order to ``loaded``.

        Raises:
            CommandRejected: when a command does not validate against the state.
            InvariantBroken: when an envelope's origin does not satisfy its policy (I4, I17)
                or an envelope targets another case.
        """
        workflow = self._registry.workflow(loaded.case.workflow)
        definition = workflow.definition
        state = workflow.typed(loaded.state)
        events: list[EventDraft] = []
        outbox: list[OutboxDraft] = []
        for envelope in commands:
            if envelope.case != loaded.case:
                raise InvariantBroken(f"envelope for {envelope.case} applied to {loaded.case}")
            if not origin_satisfies(envelope.policy, envelope.origin):
                raise InvariantBroken(
                    f"{envelope.operation}: origin {envelope.origin.kind} does not satisfy its policy"
                )
            refusal = definition.validate(state, envelope.command, self.today, self.locale)
            if refusal is not None:
                raise CommandRejected(refusal.code, refusal.sentence)
            ctx = ExecutionContext(
                case=loaded.case, actor=envelope.actor, today=self.today, turn_id=self.turn_id
            )
            execution = definition.execute(state, envelope.command, ctx)
            state = execution.state
            events.extend(execution.events)
            outbox.extend(execution.outbox)
        if not events:
            raise InvariantBroken(f"{loaded.case}: commands produced no event")
        return Transition(
            state=definition.dump_state(state), events=tuple(events), outbox=tuple(outbox)
        )


class StoredCaseDirectory:
    """A case directory over the store's case table (guide §2 step 6).

    Lists an account's cases with the workflows' candidate labels, and finds one by the words
    of ``search_text`` (every word of the query must appear, case-insensitively).

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

        One read of the account's cases: the runtime builds the turn's snapshots from it
        instead of loading every listed case a second time.
        """
        out = []
        for row in await self._store.list_cases(actor.account):
            workflow = self._registry.workflow(row.case.workflow)
            typed = workflow.typed(row.state)
            label = workflow.definition.candidate_label(row.case, typed, self.locale)
            out.append((DirectoryEntry(case=row.case, label=label), row, typed))
        return out

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
        """Return the actor's cases whose search text holds every word of ``words``.

        With ``operation`` (and ``argument``), only the cases that fit it, as
        :class:`~turnframe.core.ports.CaseDirectory` documents: a target must offer the
        operation now and not be terminal; a record argument's value must not be
        terminal (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md). ``today``
        is the day views are projected for (default: the system date).
        """
        wanted = [w for w in words.lower().split() if w]
        found = []
        day = today or self._clock.today()
        for row in await self._store.list_cases(actor.account):
            if workflow is not None and row.case.workflow != workflow:
                continue
            erased = self._registry.workflow(row.case.workflow)
            typed = erased.typed(row.state)
            text = erased.definition.search_text(typed).lower()
            if not (wanted and all(w in text for w in wanted)):
                continue
            if operation is not None:
                view = erased.definition.project(typed, day)
                if argument is not None:
                    if erased.terminal(view):
                        continue
                elif not erased.fits(view, actor, operation):
                    continue
            found.append(row.case)
        return found

    async def authorize(self, actor: Actor, case: CaseRef) -> bool:
        """Return whether the case exists and belongs to the actor's account.

        An absent case is not addressable: new cases are minted by the runtime, never
        named by a client (a UI ``origin_ref`` cannot choose a case id).
        """
        row = await self._store.load_case(case)
        return row is not None and row.account == actor.account
