"""The turn pipeline's facade: :class:`Runtime` (docs/architecture.md "One turn", 1–3, 5–12).

:class:`Runtime` holds the parts and delegates: each step of a turn (accept, load, brief,
understand, resolve, reduce, policy, commit, cards, re-project, compose, claim guard,
record) is a module of :mod:`turnframe.runtime.steps`, composed by
:mod:`turnframe.runtime.pipeline` (docs/architecture.md "The pipeline in the code").
"""

from __future__ import annotations

import inspect
import math
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import anyio

from turnframe.core.errors import UsageError
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.ports import CaseDirectory, WorkflowExecutor
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import TurnBlocks, TurnEvent, TurnFinished, TurnInput
from turnframe.core.workflow import Execution, WorkflowRegistry
from turnframe.runtime import direct, pipeline
from turnframe.runtime.app import Application, NarrationConfig
from turnframe.runtime.case_snapshots import SnapshotMemo
from turnframe.runtime.executor import StoredCaseDirectory, StoredStateExecutor
from turnframe.runtime.metrics import InMemoryMetrics, Metrics, tee
from turnframe.runtime.parts import RuntimeParts, for_conversation, handle, routed
from turnframe.runtime.ports import Clock, IdSource, RandomIds, SystemClock
from turnframe.runtime.turn import TurnResult
from turnframe.store.base import CommitResult, TurnStore
from turnframe.telemetry import NO_TELEMETRY, Telemetry
from turnframe.understand.base import Understander
from turnframe.understand.reply import ReplyWriter

__all__ = ["Runtime"]


class Runtime:
    """Runs turns of one application over one store (docs/architecture.md "One turn").

    Args:
        app: the application (workflows and knowledge).
        store: persistence (any :class:`~turnframe.store.TurnStore`).
        understander: reads text turns; a click-only turn never calls it.
        clock: gives the turn's today (default: the UTC wall clock).
        ids: mints turn, case and card ids (default: unguessable random ids).
        directory: lists and finds records. Precedence: this argument, else the
            application's ``directory`` factory, else the store-backed
            :class:`~turnframe.runtime.StoredCaseDirectory`.
        metrics: counters sink (default: in memory, readable as ``runtime.metrics``).
        reply_writer: writes the reply's words around the blocks of a text turn
            (docs/architecture.md "Claims": acknowledge, review, answer); ``None`` keeps the
            code-written words.
        narration: what is said while a turn is read (``steps``: each step in the user's
            language, except at ``low`` effort).
        executor: loads the turn's snapshots and applies its commands (and, with a
            ``commit`` member, writes them). Precedence: this argument, else the
            application's ``executor`` factory, else the store-backed
            :class:`~turnframe.runtime.StoredStateExecutor`
            (docs/adr/0025-adopter-executors.md).
        telemetry: spans per turn, step and model call, and OpenTelemetry counters
            (docs/telemetry.md; e.g. ``turnframe.telemetry.OpenTelemetry()``); default: none.

    Raises:
        UsageError: a store whose ``list_cases_page`` takes no ``recent`` (a store written
            before the default view, docs/adr/0020-what-a-brief-shows.md rule 7: every
            turn run with ``in_view=None`` reads it); from :meth:`run_turn` for a text
            turn with no understander.
    """

    def __init__(
        self,
        app: Application,
        store: TurnStore,
        understander: Understander | None = None,
        *,
        clock: Clock | None = None,
        ids: IdSource | None = None,
        directory: CaseDirectory | None = None,
        metrics: Metrics | None = None,
        reply_writer: ReplyWriter | None = None,
        narration: NarrationConfig | None = None,
        executor: WorkflowExecutor | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        _require_recent_page(store)
        self.app = app
        self.registry: WorkflowRegistry = app.registry
        self.store = store
        self.understander = understander
        self.reply_writer = reply_writer
        self.narration = narration or NarrationConfig()
        self.clock: Clock = clock or SystemClock()
        self.ids: IdSource = ids or RandomIds()
        if directory is None and app.directory is not None:
            directory = app.directory(self.registry, store)
        self.directory: CaseDirectory = directory or StoredCaseDirectory(self.registry, store)
        if executor is None and app.executor is not None:
            executor = app.executor(self.registry, store)
        self.executor: WorkflowExecutor | None = (
            None if executor is None or type(executor) is StoredStateExecutor else executor
        )
        """The adopter's executor, or ``None``: the store-backed default (the fast path)."""
        self.metrics: Metrics = metrics or InMemoryMetrics()
        self.telemetry: Telemetry = telemetry or NO_TELEMETRY
        self._listeners: list[Callable[[TurnEvent], None]] = []
        self.snapshot_memo: SnapshotMemo | None = SnapshotMemo()  # None: off (ADR 0020 rule 8)

    def _parts(
        self,
        *,
        understander: Understander | None = None,
        reply_writer: ReplyWriter | None = None,
        listener: Callable[[TurnEvent], None] | None = None,
    ) -> RuntimeParts:
        """Return the runtime's parts as they are now (read once per turn by every step).

        Built on each call, so an attribute set after construction (``reply_writer``,
        ``understander``, ``narration``, ``store``) is what the next turn runs with.
        ``understander`` / ``reply_writer`` replace the runtime's for this turn only;
        ``listener`` hears this turn's events only (besides every subscriber).
        """
        return RuntimeParts(
            app=self.app,
            registry=self.registry,
            store=self.store,
            understander=understander or self.understander,
            reply_writer=reply_writer or self.reply_writer,
            narration=self.narration,
            clock=self.clock,
            ids=self.ids,
            directory=self.directory,
            metrics=tee(self.metrics, self.telemetry),
            listeners=self._listeners,
            executor=self.executor,
            turn_listener=listener,
            telemetry=self.telemetry,
            snapshot_memo=self.snapshot_memo,
        )

    async def seed(
        self, account: str, workflow: str, state: JSONObject, case_id: str | None = None
    ) -> CaseRef:
        """Create a case directly from a JSON state (seeding; origin: a policy decision).

        Returns:
            The new case.

        Raises:
            RegistryError: for an unknown workflow.
            RevisionConflict: when the case already exists.
        """
        return await direct.seed(self._parts(), account, workflow, state, case_id)

    async def external_update(
        self,
        account: str,
        case: CaseRef,
        *,
        source: str,
        reference: str,
        transition: Callable[[Any], Execution[Any]],
    ) -> CommitResult:
        """Commit a verified external callback's effect on a case (origin VerifiedCallback, I4).

        Args:
            account: the case's account.
            case: the case.
            source: the external system (``"airline"``).
            reference: the callback's reference; with the revision it keys idempotency.
            transition: a pure function from the typed state to its execution.

        Raises:
            RevisionConflict: when the case changed concurrently.
            UsageError: when the case does not exist.
        """
        return await direct.external_update(
            self._parts(), account, case, source=source, reference=reference, transition=transition
        )

    async def run_turn(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        *,
        in_view: Sequence[CaseRef] | None = None,
        turn_id: str | None = None,
        understander: Understander | None = None,
        reply_writer: ReplyWriter | None = None,
        on_event: Callable[[TurnEvent], None] | None = None,
    ) -> TurnResult:
        """Run one turn through the whole pipeline and return what it did.

        A turn id is used once (I13; docs/adr/0016-races-and-turn-ids.md): given the id
        of one of this account's turns that has replied, with the same conversation and
        input, the stored result comes back as :meth:`recover` returns it, and nothing is
        understood, committed or stored again. An id another account's turn holds is
        treated exactly like a free one: the turn runs, and the result carries the id
        given (the store keeps it under an account-scoped alias).

        Args:
            actor: who acts.
            conversation_id: the conversation.
            turn: text, a click, or both.
            in_view: the records on the surface's screen. A list (possibly empty): the
                brief shows those, the conversation's cases, the cards' and carried
                acts' cases and what the message's words find. ``None`` (default: the
                surface says nothing about its screen): the same plus the default view,
                the actor's ``BriefLimits.recent`` most recently changed records; an
                account that small is briefed whole, a larger one is not and the brief
                says so (``Brief.records_cut``). Either way the cost is independent of
                the account (docs/adr/0020-what-a-brief-shows.md).
            turn_id: the turn's id (a client's retry key, or a crashed turn's id that was
                never persisted); default: mint one.
            understander: reads this turn's text instead of the runtime's understander
                (a server choosing one per message runs turns concurrently, so it must
                not set the attribute).
            reply_writer: writes this turn's words instead of the runtime's writer.
            on_event: called with this turn's :data:`~turnframe.core.turn.TurnEvent`
                phases and steps as they happen, and with no other turn's (a server
                streaming several turns at once); it must not block.

        Raises:
            TurnInterrupted: a store boundary failed; ``recover(turn_id)`` resumes it.
            TurnIdReused: ``turn_id`` names one of this account's turns that has not
                replied, or one started with another conversation or input.
            UsageError: a text turn with no understander, or ``in_view`` not ``None`` nor
                an iterable of ``CaseRef`` (a ``str``, or an item of another type:
                refused before anything is stored, never read as "nothing in view").
        """
        return await self._run(
            actor,
            conversation_id,
            turn,
            in_view=in_view,
            turn_id=turn_id,
            parts=self._parts(
                understander=understander, reply_writer=reply_writer, listener=on_event
            ),
        )

    async def _run(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        *,
        in_view: Sequence[CaseRef] | None,
        turn_id: str | None,
        parts: RuntimeParts,
    ) -> TurnResult:
        """Check the request and run it with ``parts`` (:meth:`run_turn`'s body)."""
        if turn.text and parts.understander is None:
            raise UsageError("a text turn needs an understander; pass one to Runtime")
        request = pipeline.TurnRequest(
            actor=actor,
            conversation_id=conversation_id,
            turn=turn,
            in_view=_checked_in_view(in_view),
            turn_id=turn_id or self.ids.new_id("turn"),
            given_by_caller=turn_id is not None,
        )
        return await pipeline.run_turn(for_conversation(parts, actor, conversation_id), request)

    async def stream_turn(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        *,
        in_view: Sequence[CaseRef] | None = None,
        turn_id: str | None = None,
        understander: Understander | None = None,
        reply_writer: ReplyWriter | None = None,
    ) -> AsyncIterator[TurnEvent]:
        """Run a turn and yield its events as they happen (docs/architecture.md "One turn").

        Order: :class:`~turnframe.core.turn.TurnPhaseChanged` and
        :class:`~turnframe.core.turn.TurnStep` events while the turn runs, then one
        :class:`~turnframe.core.turn.TurnBlocks` with the reply exactly as persisted
        (only after commit, I15), then :class:`~turnframe.core.turn.TurnFinished`. Only
        this turn's events are yielded, however many turns run at once. The arguments
        are :meth:`run_turn`'s. Leaving the iteration early cancels the turn (recovery
        resumes it from its persisted phase, docs/architecture.md "Failures"). It raises
        what :meth:`run_turn` raises, after the events yielded before the error.
        """
        send, receive = anyio.create_memory_object_stream[TurnEvent](math.inf)
        parts = self._parts(
            understander=understander, reply_writer=reply_writer, listener=send.send_nowait
        )
        outcome: list[TurnResult] = []
        failed: list[BaseException] = []

        async def run() -> None:
            async with send:
                try:
                    outcome.append(
                        await self._run(
                            actor,
                            conversation_id,
                            turn,
                            in_view=in_view,
                            turn_id=turn_id,
                            parts=parts,
                        )
                    )
                except Exception as exc:  # re-raised bare below, not as an ExceptionGroup
                    failed.append(exc)

        async with anyio.create_task_group() as group, receive:
            group.start_soon(run)
            async for event in receive:
                yield event
        if failed:
            raise failed[0]
        result = outcome[0]
        yield TurnBlocks(turn_id=result.turn_id, blocks=result.blocks)
        yield TurnFinished(turn_id=result.turn_id)

    async def recover(self, actor: Actor, turn_id: str) -> TurnResult:
        """Resume a turn from its persisted phase (docs/architecture.md "Failures").

        The runtime persists three phases: ``received`` (nothing journaled) → the turn runs
        again from its stored input, understanding included; ``committing`` (the plan is
        stored with every commit request) → the plan resumes: commits replay by idempotency
        key, nothing re-executes, cards are created once and the reply is rebuilt from
        events; ``replied`` → the stored reply and results are returned. ``understood``,
        ``planned`` and ``committed`` are streamed as events but not written, since recovery
        would treat them exactly like their predecessor.

        Raises:
            UnknownTurn: no such turn for this account.
            TurnInterrupted: a store boundary failed again.
        """
        return await pipeline.recover(await routed(self._parts(), actor, turn_id), actor, turn_id)

    async def reload(
        self, account: str, conversation_id: str
    ) -> Sequence[tuple[str, tuple[ReplyBlock, ...]]]:
        """Return every replied turn's blocks exactly as they were returned."""
        return await self.store.conversation_replies(account, conversation_id)

    def handle_for(self, turn_id: str, case: CaseRef) -> str:
        """Return the opaque handle ``case`` has in turn ``turn_id`` (server-side helper).

        Scripted understanding uses it to name records the way a model would see them;
        the brief itself never carries a case id (I1).
        """
        return handle(turn_id, case)

    def subscribe(self, listener: Callable[[TurnEvent], None]) -> None:
        """Call ``listener`` with every :data:`TurnEvent` of later turns."""
        self._listeners.append(listener)


def _checked_in_view(in_view: object) -> tuple[CaseRef, ...] | None:
    """Return ``in_view`` as a tuple of ``CaseRef`` (read once: a generator is kept whole).

    Raises:
        UsageError: ``in_view`` is a ``str``/``bytes``, not iterable, or holds an item that
            is not a ``CaseRef``.
    """
    if in_view is None:
        return None
    if isinstance(in_view, str | bytes) or not hasattr(in_view, "__iter__"):
        raise UsageError(
            f"in_view must be None or a sequence of CaseRef, got {type(in_view).__name__}"
        )
    refs = tuple(in_view)
    for ref in refs:
        if not isinstance(ref, CaseRef):
            raise UsageError(f"in_view holds a {type(ref).__name__}, not a CaseRef: {ref!r:.60}")
    return refs


def _require_recent_page(store: TurnStore) -> None:
    """Refuse a store whose ``list_cases_page`` cannot read the default view.

    Raises:
        UsageError: ``list_cases_page`` has neither a ``recent`` parameter nor ``**kwargs``
            (a store is checked once, here, not on its first turn).
    """
    method = getattr(store, "list_cases_page", None)
    if method is None:
        return  # not a TurnStore at all: its first call says what is missing
    try:
        params = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return  # a builtin or C-level callable: nothing to read
    if any(p.name == "recent" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return
    raise UsageError(
        f"{type(store).__name__}.list_cases_page takes no 'recent': a turn with no surface"
        " briefs the actor's most recently changed records (TurnStore.list_cases_page,"
        " docs/adr/0020-what-a-brief-shows.md rule 7); add it and run the store"
        " conformance suite (turnframe.store.conformance)"
    )
