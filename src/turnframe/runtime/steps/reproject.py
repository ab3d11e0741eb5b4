"""Step 12, re-project: the committed state read back for receipts, answers and what's next.

Receipts come from committed events only (I15); each question is answered on the state
after commit; the one thing to ask next is the focus record's first open obligation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from turnframe.core.acts import Question
from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import DomainEvent, Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import InteractionStatus
from turnframe.core.ports import Subject
from turnframe.core.reply import AnswerBlock
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.runtime.compose import AskNext
from turnframe.runtime.copy import say
from turnframe.runtime.parts import STANDING, RuntimeParts
from turnframe.runtime.turn import (
    BatchRequest,
    Committed,
    PersistedCards,
    PreparedTurn,
    Reprojected,
)
from turnframe.store.base import CaseRow

__all__ = ["ReprojectInput", "answers", "ask_next", "receipts", "reproject", "typed_back"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReprojectInput:
    """What re-projection starts from.

    Attributes:
        committed: the commit step's output.
        cards: the card step's output (results and notices after persisting cards).
    """

    committed: Committed
    cards: PersistedCards


async def reproject(parts: RuntimeParts, data: ReprojectInput) -> Reprojected:
    """Return the results, notices, receipts, answers and ask-next the reply is built from.

    A standing "do not submit" still holding is noticed; a second click on a card no
    longer open reports the card's original results for the ids this turn left free
    (I11) and the notice its status chooses.

    Raises:
        StoreError: a read failed (reported unwrapped, as before the split).
    """
    committed = data.committed
    prepared = committed.prepared
    results = dict(data.cards.results)
    notices = list(data.cards.notices)
    if prepared.standing is None and prepared.standing_active:
        notices.append((STANDING, say(STANDING, prepared.locale), None))
    if prepared.replayed_click is not None and not committed.lost:
        # A second click reports the card's original results; this turn's own items keep
        # their own results (I11: exactly one result each).
        for k, v in prepared.replayed_click.items():
            if k not in results:
                status, _, code = v.partition(":")
                results[k] = PlannedActResult(
                    item_id=k, status=ResultStatus(status), code=code or None
                )
        key = _REPLAYED_NOTICE.get(prepared.replayed_status or "", "already_resolved")
        if prepared.replayed_click.get("click", "").endswith(":card_changed"):
            key = "card_changed"  # closed because its content changed, not its record
        notices.append((key, say(key, prepared.locale), None))
    # Each case's typed state, shared by receipts and ask-next.
    typed = typed_back(committed.prepared.batches, committed.rows)
    return Reprojected(
        results=results,
        notices=notices,
        receipts=tuple(
            await _receipts(parts, committed.events, prepared.locale, committed.rows, typed)
        ),
        answers=tuple(await answers(parts, prepared)),
        ask_next=await ask_next(parts, prepared, results, committed.rows, typed),
    )


def typed_back(
    batches: Sequence[BatchRequest], rows: Mapping[CaseRef, CaseRow]
) -> dict[CaseRef, Any]:
    """Return case → typed state for the ``rows`` this turn's commits wrote, where known.

    The policy step loaded each batch's new state back (``BatchRequest.typed``); a row
    whose ``state`` is that very object (identity, never an equal-looking one) takes that
    typed state instead of typing it again. Any other row is typed when read (I15: the
    receipts still come from the committed state).
    """
    typed: dict[CaseRef, Any] = {}
    for batch in batches:
        known = batch.typed
        row = rows.get(batch.request.case)
        if known is not None and row is not None and row.state is known[0]:
            typed[batch.request.case] = known[1]
    return typed


_REPLAYED_NOTICE = {
    InteractionStatus.DECLINED.value: "already_declined",
    InteractionStatus.WITHDRAWN.value: "already_withdrawn",
    InteractionStatus.STALE.value: "already_stale",
}
"""The notice a second click on a card no longer open carries, by the card's status.

A stale card's stored resolution says only ``rejected:stale`` (or ``card_changed``, told
apart below), not which of the record moving, a change planned beside the click or the
client's other revision closed it (``reduce/stale.py``), so ``already_stale`` is true of
all three: the card closed without running."""


async def _receipts(
    parts: RuntimeParts,
    events: Sequence[DomainEvent],
    locale: str,
    rows: Mapping[CaseRef, CaseRow] | None,
    typed: dict[CaseRef, Any],
) -> list[Receipt]:
    """Return :func:`receipts` inside the span ``turnframe.receipts`` (docs/telemetry.md "Spans")."""
    with parts.telemetry.span("receipts", {"turnframe.events": len(events)}):
        return await receipts(parts, events, locale, rows, typed)


async def receipts(
    parts: RuntimeParts,
    events: Sequence[DomainEvent],
    locale: str,
    rows: Mapping[CaseRef, CaseRow] | None = None,
    typed: dict[CaseRef, Any] | None = None,
) -> list[Receipt]:
    """Return one receipt per event the workflow renders, citing the event's id (I15).

    Each case is read once, however many events it has; a case in ``rows`` (written by
    this turn's commits) is not read at all. ``typed`` (case → typed state) is filled
    with each case's typed state, for :func:`ask_next` to reuse.
    """
    rows = rows or {}
    out = []
    states: dict[CaseRef, Any] = {} if typed is None else typed  # one read per case
    for event in events:
        erased = parts.registry.workflow(event.case.workflow)
        if event.case not in states:
            row = rows.get(event.case) or await parts.load_row(event.case)
            states[event.case] = erased.typed(row.state if row else None)
        text = erased.definition.render_receipt(event, states[event.case], locale)
        if text:
            out.append(
                Receipt(
                    case=event.case,
                    operation=event.operation,
                    text=text,
                    event_ids=(event.id,),
                    locale=locale,
                )
            )
    return out


async def answers(parts: RuntimeParts, prepared: PreparedTurn) -> list[AnswerBlock]:
    """Return one answer block per question, from the knowledge on the committed state."""
    blocks = []
    for q in prepared.questions:
        subjects = []
        for case in q.cases:
            row = await parts.load_row(case)
            erased = parts.registry.workflow(case.workflow)
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
        if parts.app.knowledge is None:
            text = say("no_knowledge", prepared.locale)
        else:
            text = await parts.app.knowledge.answer(question, subjects, prepared.locale)
        blocks.append(AnswerBlock(question_id=q.id, topic=q.topic, text=text, basis=q.basis))
    return blocks


async def ask_next(
    parts: RuntimeParts,
    prepared: PreparedTurn,
    results: dict[str, PlannedActResult],
    rows: Mapping[CaseRef, CaseRow] | None = None,
    typed: Mapping[CaseRef, Any] | None = None,
) -> AskNext | None:
    """Return the one thing to ask next: a clarification, else the focus's first obligation.

    The focus is read from ``rows`` when this turn's commits wrote it, else from the store;
    its typed state is taken from ``typed`` when :func:`receipts` typed it already.
    """
    for result in results.values():
        if (
            result.status is ResultStatus.NEEDS_CLARIFICATION
            and result.asks is not None
            and result.sentence
        ):
            return AskNext(
                text=result.sentence,
                asks=result.asks,
                item_id=result.item_id,
                operation=result.operation,
                case=result.case,
            )
    focus = prepared.focus
    if focus is None:
        return None
    erased = parts.registry.workflow(focus.workflow)
    if typed is not None and focus in typed:
        state = typed[focus]
    else:
        row = (rows or {}).get(focus) or await parts.load_row(focus)
        state = erased.typed(row.state if row else None)
    view = erased.definition.project(state, prepared.today)
    if not view.obligations:
        return None
    first = view.obligations[0]
    return AskNext(
        text=erased.definition.ask_obligation(view, first, prepared.locale),
        asks=first.id,
        operation=first.waits_for,
        case=focus,
    )
