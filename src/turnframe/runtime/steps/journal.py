"""Journal the plan: the turn's :class:`PreparedTurn`, stored with phase ``committing``.

Recovery resumes from it without reducing again (docs/architecture.md "Recovery and
concurrency"). The commit step stores it with its commits, in one transaction
(docs/adr/0024-four-writes-per-turn.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.results import ResultStatus
from turnframe.core.turn import TurnInput
from turnframe.runtime.metrics import AMBIGUOUS_TARGET
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import ActInput, CaseSnapshot, Plan, ReductionInput
from turnframe.runtime.replay import reduction_record
from turnframe.runtime.turn import Compiled, PreparedTurn, QuestionRef, Understood

__all__ = ["PlanInput", "journal"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlanInput:
    """Everything the turn decided before its first commit.

    Attributes:
        turn_id: the turn.
        conversation_id: the conversation.
        actor: who acts.
        turn: the turn's input.
        understood: the understand step's output.
        acts: the acts as the reducer took them.
        reduction: the reducer's input.
        plan: the reducer's plan.
        compiled: the policy step's output (results and commit requests).
        questions: the questions with their cases.
        standing_before: a standing "do not submit" held before this turn.
        seen: every snapshot the turn loaded (its case and revision go into the replay
            record as ``PreparedTurn.seen``; empty: none recorded).
    """

    turn_id: str
    conversation_id: str
    actor: Actor
    turn: TurnInput
    understood: Understood
    acts: Sequence[ActInput]
    reduction: ReductionInput
    plan: Plan
    compiled: Compiled
    questions: tuple[QuestionRef, ...]
    standing_before: bool
    seen: Mapping[CaseRef, CaseSnapshot] = field(default_factory=dict)


async def journal(parts: RuntimeParts, data: PlanInput) -> PreparedTurn:
    """Return the turn's :class:`PreparedTurn`, the plan recovery resumes from.

    Card ids are minted here, once, so recovery creates the same cards; the turn's
    ambiguous targets are counted (``AMBIGUOUS_TARGET``). The plan is stored by the
    commit step, in the same transaction as its commits (``TurnStore.commit_plan``,
    docs/adr/0024-four-writes-per-turn.md); nothing is written here.
    """
    prepared = _prepared(parts, data)
    if data.plan.ambiguous:
        _count_ambiguous(parts, prepared, data.plan.ambiguous)
    return prepared


def _count_ambiguous(parts: RuntimeParts, prepared: PreparedTurn, total: int) -> None:
    """Count ``total`` ambiguities, labelled by the blocked act's workflow and operation.

    ADR 0001 rule 8: only workflow and operation names, never user or case text. An
    ambiguity whose act has no operation is counted without labels.
    """
    left = total
    for result in prepared.results:
        code = result.code or ""
        if left and result.operation and code.startswith("ambiguous_"):
            spec = parts.registry.operation(result.operation)
            workflow = spec.workflow if spec else result.operation.rsplit(".", 1)[0]
            labels = {"workflow": workflow, "operation": result.operation}
            parts.metrics.count(AMBIGUOUS_TARGET, 1, labels)
            left -= 1
    if left:
        parts.metrics.count(AMBIGUOUS_TARGET, left)


def _prepared(parts: RuntimeParts, data: PlanInput) -> PreparedTurn:
    plan, turn, understood = data.plan, data.turn, data.understood
    results = data.compiled.results
    standing_active = (
        data.standing_before
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
    return PreparedTurn(
        turn_id=data.turn_id,
        conversation_id=data.conversation_id,
        actor=data.actor,
        today=data.reduction.today,
        locale=data.reduction.locale,
        results=tuple(results.values()),
        batches=data.compiled.batches,
        closes=plan.closes,
        cards=plan.cards,
        card_ids=tuple(parts.ids.new_id("card") for _ in plan.cards),
        notices=plan.notices,
        standing=plan.standing_do_not_submit,
        standing_active=standing_active,
        questions=data.questions,
        focus=focus,
        replayed_click=plan.replayed_click,
        replayed_status=plan.replayed_status,
        clicked=(turn.interaction_response.interaction_id if turn.interaction_response else None),
        model_calls=understood.model_calls,
        ambiguous=plan.ambiguous,
        understanding=understood.understanding,
        calls=understood.calls,
        reading=understood.reading,
        has_text=bool(turn.text),
        effort=turn.effort.value if turn.effort else None,
        record_args={a.act.id: dict(a.record_args) for a in data.acts if a.record_args},
        waiting=plan.waiting,
        reduction=reduction_record(data.reduction, plan, parts.registry.live_versions()),
        seen=tuple((str(case), snap.revision) for case, snap in data.seen.items()),
    )
