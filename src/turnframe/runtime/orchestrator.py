"""The turn pipeline (guide §2 steps 1–3 and 5–12): :class:`Runtime`.

One turn: accept the input → load and project → brief and understand → resolve targets →
reduce the whole turn (pure) → apply commands (pure) → persist the plan (phase
``committing``) → commit each batch atomically with its expected revision and idempotency
key → close and create cards → re-project → compose the reply from committed events →
claim guard → persist the reply exactly as returned.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace
from datetime import date
from typing import Any

from pydantic import TypeAdapter

from turnframe.core.acts import ProposedTarget, Question, Understanding
from turnframe.core.canonical import digest, to_json_value
from turnframe.core.errors import UsageError
from turnframe.core.events import DomainEvent, EventDraft, Receipt
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.interactions import (
    Interaction,
    InteractionResolution,
    InteractionStatus,
)
from turnframe.core.ports import CaseDirectory, DirectoryEntry, Subject
from turnframe.core.reply import AnswerBlock, ReplyBlock
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.core.targets import (
    Ambiguous,
    Exact,
    NotFound,
    TargetCandidate,
    TargetResolution,
    Unauthorized,
)
from turnframe.core.turn import (
    TurnBlocks,
    TurnEvent,
    TurnFinished,
    TurnInput,
    TurnPhase,
    TurnPhaseChanged,
)
from turnframe.core.workflow import Execution, WorkflowRegistry
from turnframe.runtime.app import Application
from turnframe.runtime.claims import guard_claims
from turnframe.runtime.compose import AskNext, compose_reply
from turnframe.runtime.copy import say
from turnframe.runtime.errors import CommandRejected, TurnInterrupted, UnknownTurn
from turnframe.runtime.executor import StoredCaseDirectory, StoredStateExecutor
from turnframe.runtime.metrics import AMBIGUOUS_TARGET, InMemoryMetrics, Metrics
from turnframe.runtime.plan import ActInput, CaseSnapshot, ClickInput, ReductionInput
from turnframe.runtime.ports import Clock, IdSource, RandomIds, SystemClock
from turnframe.runtime.reduce import reduce_turn
from turnframe.runtime.serial import dump
from turnframe.runtime.turn import BatchRequest, PreparedTurn, QuestionRef, TurnResult
from turnframe.store.base import CommitRequest, CommitResult, InteractionCas, TurnRecord, TurnStore
from turnframe.store.errors import (
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
)
from turnframe.understand.base import Understander
from turnframe.understand.brief import Brief, BriefCard, BriefRecord

__all__ = ["Runtime"]

log = logging.getLogger("turnframe.runtime")

_PREPARED: TypeAdapter[PreparedTurn] = TypeAdapter(PreparedTurn)
_STANDING = "standing_do_not_submit"


class Runtime:
    """Runs turns of one application over one store (guide §2).

    Args:
        app: the application (workflows and knowledge).
        store: persistence (any :class:`~turnframe.store.TurnStore`).
        understander: reads text turns; a click-only turn never calls it.
        clock: gives the turn's today (default: the UTC wall clock).
        ids: mints turn, case and card ids (default: unguessable random ids).
        directory: lists and finds records (default: over the store's case table).
        metrics: counters sink (default: in memory, readable as ``runtime.metrics``).

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
    ) -> None:
        self.app = app
        self.registry: WorkflowRegistry = app.registry
        self.store = store
        self.understander = understander
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
            request_hash=digest(state),
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
            request_hash=digest(to_json_value(execution.events)),
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

        Args:
            actor: who acts.
            conversation_id: the conversation.
            turn: text, a click, or both.
            in_view: the records the brief shows (default: every record of the account).
            turn_id: reuse an id (recovery restarting understanding); default: mint one.

        Raises:
            TurnInterrupted: a store boundary failed; ``recover(turn_id)`` resumes.
            UsageError: a text turn with no understander.
            MalformedProposal: understanding produced nothing usable.
        """
        if turn.text and self.understander is None:
            raise UsageError("a text turn needs an understander; pass one to Runtime")
        today = self.clock.today()
        locale = turn.locale or self.app.default_locale
        turn_id = turn_id or self.ids.new_id("turn")
        phase = TurnPhase.RECEIVED
        try:
            existing = await self.store.get_turn(actor.account, turn_id)
            if existing is None:
                await self.store.begin_turn(
                    TurnRecord(
                        turn_id=turn_id,
                        account=actor.account,
                        conversation_id=conversation_id,
                        input=_input_json(turn, actor, in_view),
                    )
                )
            self._emit(TurnPhaseChanged(turn_id=turn_id, phase=phase))
            prepared, handles = await self._prepare(
                actor, conversation_id, turn, turn_id, today, locale, in_view
            )
            phase = TurnPhase.COMMITTING
            await self.store.set_turn_phase(turn_id, phase.value, dump(prepared))
            self._emit(TurnPhaseChanged(turn_id=turn_id, phase=phase))
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

        Nothing journaled (``received``/``understood``/``planned``) → the turn runs again
        from its stored input, understanding included. ``committing``/``committed`` → the
        stored plan resumes: commits replay by idempotency key, nothing re-executes, and
        the reply is rebuilt from events. ``replied`` → the stored reply is returned.

        Raises:
            UnknownTurn: no such turn for this account.
            TurnInterrupted: a store boundary failed again.
        """
        record = await self.store.get_turn(actor.account, turn_id)
        if record is None:
            raise UnknownTurn(f"no turn {turn_id}")
        if record.phase in (TurnPhase.COMMITTING.value, TurnPhase.COMMITTED.value):
            prepared = _PREPARED.validate_python(record.data)
            return await self._finish(prepared)
        if record.phase == TurnPhase.REPLIED.value:
            prepared = _PREPARED.validate_python(record.data)
            blocks = await self.store.load_reply(actor.account, turn_id) or ()
            return TurnResult(
                turn_id=turn_id,
                conversation_id=record.conversation_id,
                blocks=blocks,
                results={r.item_id: r for r in prepared.results},
            )
        turn, in_view = _input_from_json(record.input)
        return await self.run_turn(
            actor, record.conversation_id, turn, in_view=in_view, turn_id=turn_id
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
    async def _prepare(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        turn_id: str,
        today: date,
        locale: str,
        in_view: Sequence[CaseRef] | None,
    ) -> tuple[PreparedTurn, dict[str, CaseRef]]:
        conversation = await self.store.get_conversation_state(actor.account, conversation_id)
        standing_before = bool(conversation.get(_STANDING, False))
        entries = await self.directory.list_for_actor(actor)
        if in_view is not None:
            wanted = set(in_view)
            entries = [e for e in entries if e.case in wanted]
        handles = {_handle(turn_id, e.case): e.case for e in entries}
        labels = {e.case: e.label for e in entries}
        snapshots: dict[CaseRef, CaseSnapshot] = {}
        for entry in entries:
            snapshots[entry.case] = await self._snapshot(entry.case, today, locale)
        cards = tuple(await self.store.open_interactions(actor.account, conversation_id))

        understanding = Understanding()
        model_calls = 0
        if turn.text:
            assert self.understander is not None
            brief = self._brief(turn_id, turn, today, locale, entries, handles, snapshots, cards)
            read = await self.understander.understand(brief)
            understanding, model_calls = read.understanding, read.model_calls
        await self.store.set_turn_phase(turn_id, TurnPhase.UNDERSTOOD.value)
        self._emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.UNDERSTOOD))

        acts: list[ActInput] = []
        for act in understanding.acts:
            resolution = None
            if act.operation is not None:
                resolution = await self._resolve(
                    actor,
                    act.operation,
                    act.target,
                    handles,
                    labels,
                    turn,
                    snapshots,
                    today,
                    locale,
                )
            record_args, bad_args = _record_args(act.args, self.registry, act.operation, handles)
            for case in record_args.values():
                if case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
            acts.append(
                ActInput(act=act, resolution=resolution, record_args=record_args, bad_args=bad_args)
            )
        click = None
        if turn.interaction_response is not None:
            click = await self._click(actor, conversation_id, turn, snapshots, today, locale)
        plan = reduce_turn(
            ReductionInput(
                turn_id=turn_id,
                actor=actor,
                today=today,
                locale=locale,
                understanding=understanding,
                acts=tuple(acts),
                snapshots=snapshots,
                click=click,
                cards_on_screen=cards,
                standing_do_not_submit=standing_before,
            ),
            self.registry,
        )
        await self.store.set_turn_phase(turn_id, TurnPhase.PLANNED.value)

        executor = StoredStateExecutor(self.registry, self.store, today)
        executor.turn_id = turn_id
        results = {r.item_id: r for r in plan.results}
        batches: list[BatchRequest] = []
        for batch in plan.batches:
            snap = snapshots[batch.case]
            from turnframe.core.ports import LoadedCase

            loaded = LoadedCase(case=batch.case, state=snap.state_json, revision=snap.revision)
            try:
                transition = await executor.apply(loaded, batch.envelopes)
            except CommandRejected as exc:
                for act_id in batch.act_ids:
                    results[act_id] = _rejected(results[act_id], exc.code, exc.sentence)
                continue
            cas = None
            if batch.card is not None:
                cas = InteractionCas(
                    interaction_id=batch.card[0],
                    status=InteractionStatus.RESOLVED,
                    resolution=InteractionResolution(
                        option_id=batch.card[1],
                        turn_id=turn_id,
                        user=actor.user,
                        results={a: ResultStatus.COMMITTED.value for a in batch.act_ids},
                    ),
                )
            request = CommitRequest(
                account=actor.account,
                case=batch.case,
                expected_revision=batch.expected_revision,
                state=transition.state,
                events=transition.events,
                outbox=transition.outbox,
                idempotency_key=batch.envelopes[0].idempotency_key,
                request_hash=digest(
                    (
                        batch.expected_revision,
                        [e.command.to_json() for e in batch.envelopes],
                        [e.operation for e in batch.envelopes],
                        [to_json_value(e.origin) for e in batch.envelopes],
                    )
                ),
                turn_id=turn_id,
                operations=tuple(e.operation for e in batch.envelopes),
                interaction=cas,
            )
            batches.append(BatchRequest(request=request, act_ids=batch.act_ids))
        questions = []
        for q in understanding.questions:
            cases = await self._question_cases(actor, q, handles)
            for case in cases:
                if case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
            questions.append(QuestionRef(id=q.id, topic=q.topic, basis=q.basis, cases=cases))
        standing_active = (
            standing_before
            if plan.standing_do_not_submit is None
            else (plan.standing_do_not_submit)
        )
        focus = next(
            (
                r.case
                for r in results.values()
                if r.case is not None and r.status is not ResultStatus.SUPERSEDED
            ),
            None,
        )
        prepared = PreparedTurn(
            turn_id=turn_id,
            conversation_id=conversation_id,
            actor=actor,
            today=today,
            locale=locale,
            results=tuple(results.values()),
            batches=tuple(batches),
            closes=plan.closes,
            cards=plan.cards,
            card_ids=tuple(self.ids.new_id("card") for _ in plan.cards),
            notices=plan.notices,
            standing=plan.standing_do_not_submit,
            standing_active=standing_active,
            questions=tuple(questions),
            focus=focus,
            replayed_click=plan.replayed_click,
            model_calls=model_calls,
            ambiguous=plan.ambiguous,
            understanding=understanding,
        )
        if plan.ambiguous:
            self.metrics.count(AMBIGUOUS_TARGET, plan.ambiguous)
        return prepared, handles

    async def _snapshot(self, case: CaseRef, today: date, locale: str) -> CaseSnapshot:
        row = await self.store.load_case(case)
        erased = self.registry.workflow(case.workflow)
        state_json = row.state if row else None
        typed = erased.typed(state_json)
        return CaseSnapshot(
            case=case,
            state=typed,
            state_json=state_json,
            revision=row.revision if row else 0,
            view=erased.definition.project(typed, today),
            label=erased.definition.candidate_label(case, typed, locale),
        )

    def _brief(
        self,
        turn_id: str,
        turn: TurnInput,
        today: date,
        locale: str,
        entries: Sequence[DirectoryEntry],
        handles: dict[str, CaseRef],
        snapshots: dict[CaseRef, CaseSnapshot],
        cards: Sequence[Interaction],
    ) -> Brief:
        by_case = {case: handle for handle, case in handles.items()}
        records = []
        for entry in entries:
            snap = snapshots[entry.case]
            definition = self.registry.workflow(entry.case.workflow).definition
            records.append(
                BriefRecord(
                    handle=by_case[entry.case],
                    workflow=entry.case.workflow,
                    label=entry.label,
                    phase=snap.view.phase,
                    obligations=tuple(o.id for o in snap.view.obligations),
                    offered=definition.offered(snap.view, Actor(account="", user="")),
                    briefing=definition.briefing(snap.view),
                )
            )
        creatable = tuple(
            op.key
            for name in self.registry.names()
            for op in self.registry.workflow(name).operations()
            if op.creates_case
        )
        return Brief(
            turn_id=turn_id,
            text=turn.text or "",
            locale=locale,
            today=today.isoformat(),
            records=tuple(records),
            creatable=creatable,
            cards=tuple(
                BriefCard(
                    interaction_id=c.id,
                    kind=c.spec.kind.value,
                    prompt=c.spec.prompt,
                    options=tuple((o.id, o.label) for o in c.spec.options),
                )
                for c in cards
            ),
            handles=tuple(handles),
        )

    async def _resolve(
        self,
        actor: Actor,
        operation: str,
        target: ProposedTarget,
        handles: dict[str, CaseRef],
        labels: dict[CaseRef, str],
        turn: TurnInput,
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> TargetResolution:
        spec = self.registry.operation(operation)
        if target.new:
            if spec is None or not spec.creates_case:
                return NotFound(reason="not_creatable")
            case = CaseRef(spec.workflow, self.ids.new_id(spec.workflow))
            snapshots[case] = await self._snapshot(case, today, locale)
            return Exact(case=case, new=True)
        cases: list[CaseRef] = []
        if target.handles:
            for handle in dict.fromkeys(target.handles):
                named = handles.get(handle)
                if named is None:
                    return NotFound(reason="unknown_handle")
                cases.append(named)
        elif target.find:
            workflow = spec.workflow if spec else None
            cases = list(await self.directory.find(actor, workflow, target.find))
            for case in cases:
                if case not in snapshots:
                    snapshots[case] = await self._snapshot(case, today, locale)
                labels.setdefault(case, snapshots[case].label)
        elif turn.origin_ref is not None:
            if not await self.directory.authorize(actor, turn.origin_ref):
                return Unauthorized()
            cases = [turn.origin_ref]
            if turn.origin_ref not in snapshots:
                snapshots[turn.origin_ref] = await self._snapshot(turn.origin_ref, today, locale)
        if not cases:
            return NotFound(reason="no_target")
        for case in cases:
            if not await self.directory.authorize(actor, case):
                return Unauthorized()
        if len(cases) == 1:
            return Exact(case=cases[0])
        return Ambiguous(
            candidates=tuple(
                TargetCandidate(case=c, label=labels.get(c) or snapshots[c].label) for c in cases
            )
        )

    async def _click(
        self,
        actor: Actor,
        conversation_id: str,
        turn: TurnInput,
        snapshots: dict[CaseRef, CaseSnapshot],
        today: date,
        locale: str,
    ) -> ClickInput:
        response = turn.interaction_response
        assert response is not None
        card = await self.store.get_interaction(
            actor.account, conversation_id, response.interaction_id
        )
        if card is None:
            return ClickInput(response=response, interaction=None)
        option = card.spec.option(response.option_id)
        needed = {p.case for p in card.spec.pending if p.case is not None}
        if card.spec.case is not None:
            needed.add(card.spec.case)
        if option is not None and option.case is not None:
            needed.add(option.case)
        for p in card.spec.pending:
            needed.update(p.record_args.values())
        for case in needed:
            if case not in snapshots or snapshots[case].state is None:
                snapshots[case] = await self._snapshot(case, today, locale)
        case_revision = snapshots[card.spec.case].revision if card.spec.case else None
        pending = []
        for p in card.spec.pending:
            chosen = option.case if option is not None and option.case is not None else p.case
            resolution: TargetResolution | None = None
            if chosen is not None:
                if not await self.directory.authorize(actor, chosen):
                    resolution = Unauthorized()
                else:
                    resolution = Exact(case=chosen, new=p.new_case and chosen == p.case)
            pending.append(ActInput(act=p.act, resolution=resolution, record_args=p.record_args))
        return ClickInput(
            response=response, interaction=card, case_revision=case_revision, pending=tuple(pending)
        )

    async def _question_cases(
        self, actor: Actor, question: Question, handles: dict[str, CaseRef]
    ) -> tuple[CaseRef, ...]:
        target = question.target
        if target is None:
            return ()
        if target.handles:
            return tuple(handles[h] for h in dict.fromkeys(target.handles) if h in handles)
        if target.find:
            return tuple(await self.directory.find(actor, None, target.find))
        return ()

    # ----------------------------------------------------------------- finishing
    async def _finish(self, prepared: PreparedTurn) -> TurnResult:
        """Commit, close and create cards, compose and persist the reply. Idempotent."""
        turn_id = prepared.turn_id
        actor = prepared.actor
        results = {r.item_id: r for r in prepared.results}
        commits: list[CommitResult] = []
        commands: list[tuple[str, CaseRef]] = []
        committed_events: list[DomainEvent] = []
        phase = TurnPhase.COMMITTING
        try:
            for batch in prepared.batches:
                try:
                    outcome = await self.store.commit(batch.request)
                except RevisionConflict:
                    for act_id in batch.act_ids:
                        results[act_id] = _rejected(
                            results[act_id], "conflict", say("conflict", prepared.locale)
                        )
                    continue
                except InteractionAlreadyResolved:
                    for act_id in batch.act_ids:
                        results[act_id] = _rejected(
                            results[act_id],
                            "already_resolved",
                            say("unknown_card", prepared.locale),
                        )
                    continue
                for act_id in batch.act_ids:
                    results[act_id] = _status(results[act_id], ResultStatus.COMMITTED)
                committed_events.extend(outcome.events)
                if not outcome.replayed:
                    commits.append(outcome)
                    commands.extend((op, batch.request.case) for op in batch.request.operations)
            for item_id, result in list(results.items()):
                if result.status is ResultStatus.READY:
                    results[item_id] = _status(result, ResultStatus.COMMITTED)
            phase = TurnPhase.COMMITTED
            await self.store.set_turn_phase(turn_id, phase.value)
            self._emit(TurnPhaseChanged(turn_id=turn_id, phase=phase))
            for close in prepared.closes:
                await self.store.close_interaction(
                    InteractionCas(
                        interaction_id=close.interaction_id,
                        status=close.status,
                        resolution=InteractionResolution(
                            option_id=close.option_id,
                            turn_id=turn_id,
                            user=actor.user,
                            results=dict(close.results),
                        ),
                    )
                )
            if prepared.standing is not None:
                state = await self.store.get_conversation_state(
                    actor.account, prepared.conversation_id
                )
                state = {**state, _STANDING: prepared.standing}
                await self.store.put_conversation_state(
                    actor.account, prepared.conversation_id, state
                )
        except StoreError as exc:
            raise TurnInterrupted(turn_id, phase.value, str(exc)) from exc

        notices = list(prepared.notices)
        created, results = await self._persist_cards(prepared, results, notices)
        if prepared.standing is None and prepared.standing_active:
            notices.append((_STANDING, say(_STANDING, prepared.locale), None))
        if prepared.replayed_click is not None:
            results.update(
                {
                    k: PlannedActResult(
                        item_id=k,
                        status=ResultStatus(v.split(":")[0]),
                        code=(v.split(":") + [""])[1] or None,
                    )
                    for k, v in prepared.replayed_click.items()
                }
            )
        receipts = await self._receipts(committed_events, prepared.locale)
        answers = await self._answers(prepared)
        ask_next = await self._ask_next(prepared, results)
        blocks = compose_reply(
            results=list(results.values()),
            receipts=receipts,
            notices=notices,
            answers=answers,
            cards=created,
            ask_next=ask_next,
        )
        kept, refused = guard_claims(blocks, committed_events)
        if refused:
            log.error("claim guard refused %d block(s) in turn %s", len(refused), turn_id)
        try:
            await self.store.save_reply(turn_id, kept)
            await self.store.set_turn_phase(turn_id, TurnPhase.REPLIED.value)
            await self.store.save_replay(
                actor.account,
                turn_id,
                {
                    "turn_id": turn_id,
                    "understanding": to_json_value(prepared.understanding),
                    "results": {k: v.label for k, v in results.items()},
                    "commands": [[op, str(case)] for op, case in commands],
                    "events": [e.id for e in committed_events],
                    "cards": [c.id for c in created],
                    "model_calls": prepared.model_calls,
                },
            )
        except StoreError as exc:
            raise TurnInterrupted(turn_id, TurnPhase.COMMITTED.value, str(exc)) from exc
        self._emit(TurnPhaseChanged(turn_id=turn_id, phase=TurnPhase.REPLIED))
        return TurnResult(
            turn_id=turn_id,
            conversation_id=prepared.conversation_id,
            blocks=kept,
            results=results,
            commits=tuple(commits),
            events=tuple(e for c in commits for e in c.events),
            interactions_created=tuple(created),
            model_calls=prepared.model_calls,
            refused_blocks=refused,
            commands=tuple(commands),
        )

    async def _persist_cards(
        self,
        prepared: PreparedTurn,
        results: dict[str, PlannedActResult],
        notices: list[tuple[str, str, str | None]],
    ) -> tuple[list[Interaction], dict[str, PlannedActResult]]:
        """Persist planned cards bound to the post-commit revision (I5, I6)."""
        created: list[Interaction] = []
        actor = prepared.actor
        for planned, card_id in zip(prepared.cards, prepared.card_ids, strict=True):
            spec = planned.spec
            existing = await self.store.get_interaction(
                actor.account, prepared.conversation_id, card_id
            )
            if existing is not None:
                created.append(existing)
                continue
            if spec.case is not None and not spec.independent:
                row = await self.store.load_case(spec.case)
                spec = _rebind(spec, row.revision if row else 0)
            try:
                others = [
                    c
                    for c in await self.store.open_interactions(
                        actor.account, prepared.conversation_id
                    )
                    if spec.case is not None and c.spec.case == spec.case
                ]
                card = await self.store.create_interaction(
                    Interaction(
                        id=card_id,
                        account=actor.account,
                        conversation_id=prepared.conversation_id,
                        turn_id=prepared.turn_id,
                        spec=spec,
                        payload_hash=spec.payload_hash(),
                    )
                )
            except StoreError as exc:
                # I6: the card does not exist, so no text may refer to it.
                log.warning("card not persisted in turn %s: %s", prepared.turn_id, exc)
                notices.append(("card_failed", say("card_failed", prepared.locale), None))
                for item in planned.item_ids:
                    if item in results:
                        results[item] = _status(
                            results[item], results[item].status, code="card_failed"
                        )
                continue
            if others:
                label = (
                    self.registry.workflow(spec.case.workflow).definition.candidate_label(
                        spec.case, None, prepared.locale
                    )
                    if spec.case
                    else ""
                )
                del label
                notices.append(
                    (
                        "card_replaced",
                        say("card_replaced", prepared.locale, label=_case_label_hint(others[0])),
                        None,
                    )
                )
            created.append(card)
            for item in planned.item_ids:
                if item in results:
                    results[item] = _status(
                        results[item], results[item].status, interaction_id=card.id
                    )
        return created, results

    async def _receipts(self, events: Sequence[DomainEvent], locale: str) -> list[Receipt]:
        receipts = []
        for event in events:
            erased = self.registry.workflow(event.case.workflow)
            row = await self.store.load_case(event.case)
            text = erased.definition.render_receipt(
                event, erased.typed(row.state if row else None), locale
            )
            if text:
                receipts.append(
                    Receipt(
                        case=event.case,
                        operation=event.operation,
                        text=text,
                        event_ids=(event.id,),
                        locale=locale,
                    )
                )
        return receipts

    async def _answers(self, prepared: PreparedTurn) -> list[AnswerBlock]:
        blocks = []
        for q in prepared.questions:
            subjects = []
            for case in q.cases:
                row = await self.store.load_case(case)
                erased = self.registry.workflow(case.workflow)
                typed = erased.typed(row.state if row else None)
                subjects.append(
                    Subject(
                        case=case,
                        state=row.state if row else None,
                        view=erased.definition.project(typed, prepared.today),
                        label=erased.definition.candidate_label(case, typed, prepared.locale),
                    )
                )
            question = Question(id=q.id, topic=q.topic, basis=q.basis)
            if self.app.knowledge is None:
                text = say("no_knowledge", prepared.locale)
            else:
                text = await self.app.knowledge.answer(question, subjects, prepared.locale)
            blocks.append(AnswerBlock(question_id=q.id, topic=q.topic, text=text, basis=q.basis))
        return blocks

    async def _ask_next(
        self, prepared: PreparedTurn, results: dict[str, PlannedActResult]
    ) -> AskNext | None:
        for result in results.values():
            if (
                result.status is ResultStatus.NEEDS_CLARIFICATION
                and result.asks is not None
                and result.sentence
            ):
                return AskNext(text=result.sentence, asks=result.asks)
        focus = prepared.focus
        if focus is None:
            return None
        row = await self.store.load_case(focus)
        erased = self.registry.workflow(focus.workflow)
        view = erased.definition.project(erased.typed(row.state if row else None), prepared.today)
        if not view.obligations:
            return None
        first = view.obligations[0]
        return AskNext(
            text=erased.definition.ask_obligation(view, first, prepared.locale), asks=first.id
        )

    def _emit(self, event: TurnEvent) -> None:
        for listener in list(self._listeners):
            listener(event)


# ------------------------------------------------------------------------ helpers
def _handle(turn_id: str, case: CaseRef) -> str:
    """Mint the opaque per-turn handle of ``case`` (I1): no record id can be read from it."""
    return "h" + digest(("handle", turn_id, str(case)))[:10]


def _record_args(
    args: Any, registry: WorkflowRegistry, operation: str | None, handles: dict[str, CaseRef]
) -> tuple[dict[str, CaseRef], dict[str, str]]:
    spec = registry.operation(operation) if operation else None
    record: dict[str, CaseRef] = {}
    bad: dict[str, str] = {}
    if spec is None:
        return record, bad
    for arg in spec.arguments:
        if arg.record_workflow is None or arg.name not in args:
            continue
        words = str(args[arg.name]).strip()
        if words.lower() in arg.literals:
            continue
        case = handles.get(words)
        if case is None or case.workflow != arg.record_workflow:
            bad[arg.name] = "unknown_handle"
        else:
            record[arg.name] = case
    return record, bad


def _status(result: PlannedActResult, status: ResultStatus, **changes: Any) -> PlannedActResult:
    return replace(result, status=status, **changes)


def _rejected(result: PlannedActResult, code: str, sentence: str) -> PlannedActResult:
    return _status(result, ResultStatus.REJECTED, code=code, sentence=sentence)


def _rebind(spec: Any, revision: int) -> Any:
    return replace(spec, bound_revision=revision)


def _case_label_hint(card: Interaction) -> str:
    return card.spec.prompt.split(":")[0] if card.spec.case else ""


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


def _with_handles(result: TurnResult, handles: dict[str, CaseRef]) -> TurnResult:
    return replace(result, handles=handles)
