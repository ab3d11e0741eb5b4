"""The turn pipeline (guide §2 steps 1–3 and 5–12): :class:`Runtime`.

One turn: accept the input → load and project → brief and understand → resolve targets →
reduce the whole turn (pure) → apply commands (pure) → persist the plan (phase
``committing``) → commit each batch atomically with its expected revision and idempotency
key → close and create cards → re-project → compose the reply from committed events →
claim guard → persist the reply exactly as returned.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from typing import Any

from pydantic import TypeAdapter

from turnframe.core.canonical import digest, to_json_value
from turnframe.core.commands import PolicyDecision, VerifiedCallback
from turnframe.core.errors import UsageError
from turnframe.core.events import EventDraft
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.ports import CaseDirectory
from turnframe.core.reply import ReplyBlock
from turnframe.core.turn import (
    TurnBlocks,
    TurnEvent,
    TurnFinished,
    TurnInput,
    TurnPhase,
    TurnPhaseChanged,
)
from turnframe.core.workflow import Execution, WorkflowRegistry
from turnframe.runtime.app import Application, NarrationConfig
from turnframe.runtime.errors import TurnIdReused, TurnInterrupted, UnknownTurn
from turnframe.runtime.executor import StoredCaseDirectory
from turnframe.runtime.metrics import InMemoryMetrics, Metrics
from turnframe.runtime.ports import Clock, IdSource, RandomIds, SystemClock
from turnframe.runtime.serial import load_result
from turnframe.runtime.turn import PreparedTurn, TurnResult
from turnframe.store.base import CommitRequest, CommitResult, TurnRecord, TurnStore
from turnframe.store.errors import (
    StoreError,
    TurnIdTaken,
)
from turnframe.understand.base import Understander
from turnframe.understand.reply import ReplyWriter

__all__ = ["Runtime"]

from turnframe.runtime.finish import _Finishing
from turnframe.runtime.prepare import _handle, _Preparing

_PREPARED: TypeAdapter[PreparedTurn] = TypeAdapter(PreparedTurn)


class Runtime(_Preparing, _Finishing):
    """Runs turns of one application over one store (guide §2).

    Args:
        app: the application (workflows and knowledge).
        store: persistence (any :class:`~turnframe.store.TurnStore`).
        understander: reads text turns; a click-only turn never calls it.
        clock: gives the turn's today (default: the UTC wall clock).
        ids: mints turn, case and card ids (default: unguessable random ids).
        directory: lists and finds records (default: over the store's case table).
        metrics: counters sink (default: in memory, readable as ``runtime.metrics``).
        reply_writer: writes the reply's words around the blocks of a text turn (guide
            §9: acknowledge, review, answer); ``None`` keeps the code-written words.
        narration: what is said while a turn is read (``steps``: each step in the user's
            language, except at ``low`` effort).

    Raises:
        UsageError: from :meth:`run_turn` for a text turn with no understander.
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
    ) -> None:
        self.app = app
        self.registry: WorkflowRegistry = app.registry
        self.store = store
        self.understander = understander
        self.reply_writer = reply_writer
        self.narration = narration or NarrationConfig()
        self.clock: Clock = clock or SystemClock()
        self.ids: IdSource = ids or RandomIds()
        self.directory: CaseDirectory = directory or StoredCaseDirectory(self.registry, store)
        self.metrics: Metrics = metrics or InMemoryMetrics()
        self._listeners: list[Callable[[TurnEvent], None]] = []

    # ----------------------------------------------------------------- public API
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
        erased = self.registry.workflow(workflow)
        typed = erased.typed(state)
        case = CaseRef(workflow, case_id or self.ids.new_id(workflow))
        request = CommitRequest(
            account=account,
            case=case,
            expected_revision=0,
            state=erased.definition.dump_state(typed),
            events=(EventDraft(type=f"{workflow}.seeded", data=state, operation="seed"),),
            idempotency_key=digest(("seed", account, str(case))),
            request_hash=digest((to_json_value(PolicyDecision(rule="seed")), state)),
            turn_id="",
            operations=("seed",),
        )
        await self.store.commit(request)
        return case

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
        row = await self.store.load_case(case)
        if row is None or row.account != account:
            raise UsageError(f"no case {case} for this account")
        erased = self.registry.workflow(case.workflow)
        execution = transition(erased.typed(row.state))
        request = CommitRequest(
            account=account,
            case=case,
            expected_revision=row.revision,
            state=erased.definition.dump_state(execution.state),
            events=execution.events,
            outbox=execution.outbox,
            idempotency_key=digest(
                ("callback", account, source, reference, str(case), row.revision)
            ),
            request_hash=digest(
                (
                    to_json_value(VerifiedCallback(source=source, reference=reference)),
                    execution.events,
                )
            ),
            turn_id="",
            operations=tuple(dict.fromkeys(e.operation for e in execution.events)),
        )
        return await self.store.commit(request)

    async def run_turn(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        *,
        in_view: Sequence[CaseRef] | None = None,
        turn_id: str | None = None,
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
            in_view: the records the brief shows (default: every record of the account).
            turn_id: the turn's id (a client's retry key, or a crashed turn's id that was
                never persisted); default: mint one.

        Raises:
            TurnInterrupted: a store boundary failed; ``recover(turn_id)`` resumes it.
            TurnIdReused: ``turn_id`` names one of this account's turns that has not
                replied, or one started with another conversation or input.
            UsageError: a text turn with no understander.
        """
        if turn.text and self.understander is None:
            raise UsageError("a text turn needs an understander; pass one to Runtime")
        given = turn_id or self.ids.new_id("turn")
        record = TurnRecord(
            turn_id=given,
            account=actor.account,
            conversation_id=conversation_id,
            input=_input_json(turn, actor, in_view),
        )
        try:
            key, existing = await self._begin(record, given_by_caller=turn_id is not None)
        except StoreError as exc:
            raise TurnInterrupted(given, TurnPhase.RECEIVED.value, str(exc)) from exc
        if existing is not None:
            if existing.phase != TurnPhase.REPLIED.value:
                raise TurnIdReused(given, "unfinished")
            if existing.conversation_id != conversation_id or existing.input != record.input:
                raise TurnIdReused(given, "different_input")
            return replace(await self._stored(actor, existing), turn_id=given)
        try:
            result = await self._run(actor, conversation_id, turn, in_view, key)
        except TurnInterrupted as exc:
            if key == given:
                raise
            cause = exc.__cause__ or exc
            raise TurnInterrupted(given, exc.phase, str(cause)) from exc
        return result if key == given else replace(result, turn_id=given)

    async def _begin(
        self, record: TurnRecord, *, given_by_caller: bool = True
    ) -> tuple[str, TurnRecord | None]:
        """Persist ``record`` as a new turn, or find the account's turn with its id.

        Returns ``(storage id, None)`` for a new turn, ``(storage id, record)`` when the
        account already has a turn under the id or its alias. The id is tried first;
        when another account's turn holds it (``TurnIdTaken`` and not this account's),
        the account-scoped alias is used, so a foreign id behaves like a free one. A
        freshly minted id (``given_by_caller=False``) skips the look-up: nobody has it.

        Raises:
            StoreError: the store failed (nothing about another account's turn leaks).
        """
        account = record.account
        for key in (record.turn_id, _alias(account, record.turn_id)) if given_by_caller else ():
            existing = await self.store.get_turn(account, key)
            if existing is not None:
                return key, existing
        for key in (record.turn_id, _alias(account, record.turn_id)):
            try:
                await self.store.begin_turn(replace(record, turn_id=key))
            except TurnIdTaken:
                existing = await self.store.get_turn(account, key)
                if existing is not None:  # a concurrent run of the same id won
                    return key, existing
                continue
            return key, None
        raise StoreError(f"turn {record.turn_id} could not be started")

    async def _run(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        in_view: Sequence[CaseRef] | None,
        turn_id: str,
    ) -> TurnResult:
        """Understand, plan, journal the plan and finish the begun turn ``turn_id``."""
        today = self.clock.today()
        locale = turn.locale or self.app.default_locale
        phase = TurnPhase.RECEIVED
        try:
            self._emit(TurnPhaseChanged(turn_id=turn_id, phase=phase))
            prepared, handles = await self._prepare(
                actor, conversation_id, turn, turn_id, today, locale, in_view
            )
            # The plan is written with its commits (TurnStore.commit_plan, in _finish).
            self._emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.COMMITTING))
        except StoreError as exc:
            raise TurnInterrupted(turn_id, phase.value, str(exc)) from exc
        result = await self._finish(prepared)
        return _with_handles(result, handles)

    async def stream_turn(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        *,
        in_view: Sequence[CaseRef] | None = None,
    ) -> AsyncIterator[TurnEvent]:
        """Run a turn and yield its events: phases, then the blocks after commit, then the end.

        Raises:
            The errors of :meth:`run_turn`.
        """
        seen: list[TurnEvent] = []
        self._listeners.append(seen.append)
        try:
            result = await self.run_turn(actor, conversation_id, turn, in_view=in_view)
        finally:
            self._listeners.remove(seen.append)
        for event in seen:
            yield event
        yield TurnBlocks(turn_id=result.turn_id, blocks=result.blocks)
        yield TurnFinished(turn_id=result.turn_id)

    async def recover(self, actor: Actor, turn_id: str) -> TurnResult:
        """Resume a turn from its persisted phase (guide §14).

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
        record = await self.store.get_turn(actor.account, turn_id)
        if record is None:
            record = await self.store.get_turn(actor.account, _alias(actor.account, turn_id))
        if record is None:
            raise UnknownTurn(f"no turn {turn_id}")
        if record.phase in (TurnPhase.COMMITTING.value, TurnPhase.COMMITTED.value):
            prepared = _PREPARED.validate_python(record.data)
            result = await self._finish(prepared, resumed=True)
        elif record.phase == TurnPhase.REPLIED.value:
            result = await self._stored(actor, record)
        else:
            turn, in_view = _input_from_json(record.input)
            result = await self._run(actor, record.conversation_id, turn, in_view, record.turn_id)
        return result if record.turn_id == turn_id else replace(result, turn_id=turn_id)

    async def _stored(self, actor: Actor, record: TurnRecord) -> TurnResult:
        """Return a replied turn's stored reply and results (nothing runs again)."""
        stored = record.data.get("results")
        results = (
            [load_result(r) for r in stored if isinstance(r, dict)]
            if isinstance(stored, list)
            else []
        )
        blocks = await self.store.load_reply(actor.account, record.turn_id) or ()
        return TurnResult(
            turn_id=record.turn_id,
            conversation_id=record.conversation_id,
            blocks=blocks,
            results={r.item_id: r for r in results},
        )

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
        return _handle(turn_id, case)

    def subscribe(self, listener: Callable[[TurnEvent], None]) -> None:
        """Call ``listener`` with every :data:`TurnEvent` of later turns."""
        self._listeners.append(listener)

    # -------------------------------------------------------------- preparation


def _input_json(turn: TurnInput, actor: Actor, in_view: Sequence[CaseRef] | None) -> JSONObject:
    data = to_json_value(
        {
            "text": turn.text,
            "interaction_response": turn.interaction_response,
            "origin_ref": turn.origin_ref,
            "effort": turn.effort,
            "locale": turn.locale,
            "attachments": [{"name": a.name, "media_type": a.media_type} for a in turn.attachments],
            "in_view": None if in_view is None else [str(c) for c in in_view],
            "user": actor.user,
        }
    )
    assert isinstance(data, dict)
    return data


def _input_from_json(data: JSONObject) -> tuple[TurnInput, list[CaseRef] | None]:
    from turnframe.core.turn import Effort, InteractionResponse

    def ref(value: object) -> CaseRef | None:
        if not isinstance(value, str):
            return None
        workflow, _, case_id = value.partition("/")
        return CaseRef(workflow, case_id)

    response = data.get("interaction_response")
    click = None
    if isinstance(response, dict):
        expected = response.get("expected_revision")
        free = response.get("free_value")
        click = InteractionResponse(
            interaction_id=str(response["interaction_id"]),
            option_id=str(response["option_id"]),
            expected_revision=expected if isinstance(expected, int) else None,
            free_value=free if isinstance(free, str) else None,
        )
    effort = data.get("effort")
    text = data.get("text")
    locale = data.get("locale")
    in_view_raw = data.get("in_view")
    in_view = None
    if isinstance(in_view_raw, list):
        in_view = [c for c in (ref(v) for v in in_view_raw) if c is not None]
    return (
        TurnInput(
            text=text if isinstance(text, str) else None,
            interaction_response=click,
            origin_ref=ref(data.get("origin_ref")),
            effort=Effort(effort) if isinstance(effort, str) else None,
            locale=locale if isinstance(locale, str) else "en",
        ),
        in_view,
    )


def _alias(account: str, turn_id: str) -> str:
    """Return the account-scoped id a turn is stored under when another account holds ``turn_id``.

    ``"turn-"`` + the first 24 hex digits of ``digest(("turn_id", account, turn_id))``: a
    fixed function of the account and the id, so the account finds its turn again, and
    no other account's id can be read from it (docs/adr/0016-races-and-turn-ids.md).
    """
    return "turn-" + digest(("turn_id", account, turn_id))[:24]


def _with_handles(result: TurnResult, handles: dict[str, CaseRef]) -> TurnResult:
    return replace(result, handles=handles)
