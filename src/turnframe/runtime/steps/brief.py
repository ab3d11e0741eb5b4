"""Step 3, build the brief: what understanding is shown, as handles and labels (I1).

docs/architecture.md "What each step decides", **Brief**.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.interactions import Interaction
from turnframe.core.turn import Effort, TurnInput, TurnStep
from turnframe.runtime.copy import narrate
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.turn import Loaded
from turnframe.understand.brief import (
    AskedFor,
    Brief,
    BriefCard,
    BriefPending,
    BriefRecord,
    DomainCheck,
    StepListener,
)

__all__ = ["BriefInput", "brief"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class BriefInput:
    """What the brief is built from.

    Attributes:
        actor: who acts (the operations offered to them).
        turn_id: the turn.
        turn: the turn's input (text, effort).
        today: the turn's today.
        locale: the turn's locale.
        loaded: the load step's output (records, handles, snapshots, cards, waiting acts).
        check: the domain check understanding may call (the domain-check step's output).
    """

    actor: Actor
    turn_id: str
    turn: TurnInput
    today: date
    locale: str
    loaded: Loaded
    check: DomainCheck


async def brief(parts: RuntimeParts, data: BriefInput) -> Brief:
    """Return the brief of a text turn: records by handle, offered operations, cards, topics.

    Each record's briefing travels under the application's ``briefing_budget`` (a cut is
    recorded in ``BriefRecord.briefing_cut``), a default view cut at
    ``BriefLimits.recent`` is marked in ``Brief.records_cut``, and the glossary of the
    workflows on offer comes along in the turn's language
    (docs/adr/0020-what-a-brief-shows.md). The labels are the snapshots' (labelled once
    per snapshot, rule 8); the brief is built in one construction.

    The open cards carry their pending acts as a link may name them, and the acts waiting
    for a record are listed (ADR 0012, ADR 0007). Understanding's steps are narrated through
    the brief's ``on_step`` as :class:`~turnframe.core.turn.TurnStep` events, built only
    when some listener is subscribed at the moment of the step.
    """
    turn, locale, loaded = data.turn, data.locale, data.loaded
    handles, snapshots, asked = loaded.handles, loaded.snapshots, loaded.asked
    registry = parts.registry
    by_case = {case: handle for handle, case in handles.items()}
    entries = loaded.entries
    definitions = [registry.workflow(e.case.workflow).definition for e in entries]
    views = [snapshots[e.case].view for e in entries]
    # The deployment's budget, in the brief's order; a cut is counted, never silent.
    briefings = parts.app.briefing_budget.cut(
        [d.briefing(v) for d, v in zip(definitions, views, strict=True)]
    )
    records = tuple(
        BriefRecord(
            handle=by_case[entry.case],
            workflow=entry.case.workflow,
            label=entry.label,
            phase=view.phase,
            obligations=tuple(o.id for o in view.obligations),
            offered=definition.offered(view, data.actor),
            briefing=briefing,
            briefing_cut=cut,
        )
        for entry, definition, view, (briefing, cut) in zip(
            entries, definitions, views, briefings, strict=True
        )
    )
    creatable = tuple(
        op.key
        for name in registry.names()
        for op in registry.workflow(name).operations()
        if op.creates_case
    )
    operations = tuple(
        op
        for key in dict.fromkeys((*creatable, *(k for r in records for k in r.offered)))
        if (op := registry.operation(key)) is not None
    )
    return Brief(
        turn_id=data.turn_id,
        text=turn.text or "",
        locale=locale,
        today=data.today.isoformat(),
        records=records,
        creatable=creatable,
        cards=tuple(
            BriefCard(
                interaction_id=c.id,
                kind=c.spec.kind.value,
                prompt=c.spec.prompt,
                options=tuple((o.id, o.label) for o in c.spec.options),
                acts=_brief_pending(parts, c, locale),
            )
            for c in loaded.cards
        ),
        waiting=tuple(
            BriefPending(
                ref=w.item_id,
                operation=w.pending.act.operation or "",
                summary=_summary(parts, w.pending.act.operation, locale),
            )
            for w in loaded.waiting
        ),
        handles=tuple(handles),
        operations=operations,
        glossary=registry.glossary(locale, {op.workflow for op in operations}),
        unlisted=loaded.unlisted,
        records_cut=loaded.records_cut,
        topics=tuple(getattr(parts.app.knowledge, "topics", ())),
        topic_notes=tuple(dict(getattr(parts.app.knowledge, "topic_notes", {})).items()),
        asked=str(asked["text"]) if isinstance(asked, dict) else None,
        asked_for=_asked_for(asked, by_case),
        effort=turn.effort.value if turn.effort else None,
        check=data.check,
        on_step=_step_listener(parts, data.turn_id, turn, locale),
    )


def _step_listener(parts: RuntimeParts, turn_id: str, turn: TurnInput, locale: str) -> StepListener:
    """Return the brief's ``on_step``: a :class:`TurnStep` to every listener, if any.

    The event (and its narrated words) is built only when a listener is subscribed when
    the step is reported (:attr:`RuntimeParts.listening`); the words are code's, in the
    turn's locale, unless narration is off or the effort is ``low``.
    """
    effort = turn.effort or getattr(parts.understander, "effort", None) or Effort.MEDIUM
    prose = parts.narration.steps and Effort(effort) is not Effort.LOW

    def on_step(name: str, detail: str, count: int | None) -> None:
        if not parts.listening:
            return
        text = narrate(name, detail, locale, count) if prose else ""
        parts.emit(TurnStep(turn_id=turn_id, name=name, detail=detail, text=text))

    return on_step


def _summary(parts: RuntimeParts, operation: str | None, locale: str) -> str:
    spec = parts.registry.operation(operation or "")
    return spec.summary_in(locale) if spec else ""


def _brief_pending(parts: RuntimeParts, card: Interaction, locale: str) -> tuple[BriefPending, ...]:
    """Return a card's pending acts as a link may name them (ADR 0012)."""
    return tuple(
        BriefPending(
            ref=f"{card.id}:{p.act.id}",
            operation=p.act.operation or "",
            summary=_summary(parts, p.act.operation, locale),
        )
        for p in card.spec.pending
    )


def _ref(text: Any) -> CaseRef | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    workflow, _, case_id = text.partition("/")
    return CaseRef(workflow, case_id)


def _asked_for(asked: Any, by_case: dict[CaseRef, str]) -> AskedFor | None:
    """Return what the last reply asked for as the brief shows it (the record as a handle)."""
    if not isinstance(asked, dict):
        return None
    case = _ref(asked.get("case"))
    operation, argument = asked.get("operation"), asked.get("argument")
    return AskedFor(
        operation=operation if isinstance(operation, str) else None,
        argument=argument if isinstance(argument, str) else None,
        record=by_case.get(case) if case else None,
    )
