"""Turn finishing (guide §2 steps 10–12): commit, cards, receipts, answers, the reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from turnframe.core.acts import Question
from turnframe.core.canonical import to_json_value
from turnframe.core.events import DomainEvent, Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionResolution,
)
from turnframe.core.ports import Subject
from turnframe.core.reply import AnswerBlock
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.core.turn import (
    TurnPhase,
    TurnPhaseChanged,
)
from turnframe.runtime.claims import guard_claims
from turnframe.runtime.compose import AskNext, compose_reply
from turnframe.runtime.copy import say
from turnframe.runtime.errors import TurnInterrupted
from turnframe.runtime.reduce import card_prompt
from turnframe.runtime.turn import PreparedTurn, TurnResult
from turnframe.store.base import CommitResult, InteractionCas
from turnframe.store.errors import (
    InteractionAlreadyResolved,
    RevisionConflict,
    StoreError,
)

__all__: list[str] = []

from turnframe.runtime._base import _STANDING, _RuntimeBase, log
from turnframe.runtime.serial import dump


class _Finishing(_RuntimeBase):
    """Everything from the first commit to the persisted reply; idempotent for recovery."""

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
                # A replayed commit is this turn's own when its events carry this turn's id
                # (recovery after "performed, then the acknowledgement was lost").
                own = bool(outcome.events) and all(e.turn_id == turn_id for e in outcome.events)
                if not outcome.replayed or own:
                    commits.append(outcome)
                    commands.extend((op, batch.request.case) for op in batch.request.operations)
            for item_id, result in list(results.items()):
                if result.status is ResultStatus.READY:
                    results[item_id] = _status(result, ResultStatus.COMMITTED)
            phase = TurnPhase.COMMITTED
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
            # A second click reports the card's original results; this turn's own items keep
            # their own results (I11: exactly one result each).
            for k, v in prepared.replayed_click.items():
                if k not in results:
                    status, _, code = v.partition(":")
                    results[k] = PlannedActResult(
                        item_id=k, status=ResultStatus(status), code=code or None
                    )
            notices.append(("already_resolved", say("already_resolved", prepared.locale), None))
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
                    "calls": list(prepared.calls),
                    "reading": prepared.reading,
                },
            )
            await self.store.set_turn_phase(
                turn_id, TurnPhase.REPLIED.value, {"results": [dump(r) for r in results.values()]}
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
                if spec.kind in (InteractionKind.CONFIRM, InteractionKind.REVIEW):
                    # D2: the prompt shows the record at the revision the card is bound to.
                    erased = self.registry.workflow(spec.case.workflow)
                    label = erased.definition.candidate_label(
                        spec.case, erased.typed(row.state if row else None), prepared.locale
                    )
                    prompt = card_prompt(
                        self.registry, spec.kind, label, spec.operations, prepared.locale
                    )
                    spec = replace(spec, prompt=prompt)
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
        states: dict[CaseRef, Any] = {}  # one read per case, however many events it has
        for event in events:
            erased = self.registry.workflow(event.case.workflow)
            if event.case not in states:
                row = await self.store.load_case(event.case)
                states[event.case] = erased.typed(row.state if row else None)
            text = erased.definition.render_receipt(event, states[event.case], locale)
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


def _status(result: PlannedActResult, status: ResultStatus, **changes: Any) -> PlannedActResult:
    return replace(result, status=status, **changes)


def _rejected(result: PlannedActResult, code: str, sentence: str) -> PlannedActResult:
    return _status(result, ResultStatus.REJECTED, code=code, sentence=sentence)


def _rebind(spec: Any, revision: int) -> Any:
    return replace(spec, bound_revision=revision)


def _case_label_hint(card: Interaction) -> str:
    return card.spec.prompt.split(":")[0] if card.spec.case else ""
