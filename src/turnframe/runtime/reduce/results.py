"""Results and batches: every item gets exactly one result (I11); commands group by case (I14).

``record`` keeps the first decision for an item id and ignores any later one, so a rule
family never overwrites another's result. ``batches`` groups the ready commands by case
and atomicity scope, each group under one idempotency key.
"""

from __future__ import annotations

from datetime import date

from turnframe.core.acts import SemanticAct
from turnframe.core.canonical import digest
from turnframe.core.commands import AtomicityScope, CommandEnvelope
from turnframe.core.ids import CaseRef
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.runtime.plan import PlannedBatch
from turnframe.runtime.reduce.state import Ready, Reduction
from turnframe.runtime.values import readings_text

__all__ = ["batches", "clarify_arg", "full_label", "record", "reject"]


def full_label(result: PlannedActResult) -> str:
    """Return ``status:code`` (or ``status``): how a card's resolution keeps a result."""
    return f"{result.status.value}:{result.code}" if result.code else result.status.value


def record(r: Reduction, item_id: str, status: ResultStatus, **kw: object) -> None:
    """Record ``item_id``'s result unless it already has one (I11: the first decision stands).

    ``kw`` are the remaining :class:`PlannedActResult` fields (code, sentence, ...).
    """
    if item_id in r.results:
        return
    r.results[item_id] = PlannedActResult(item_id=item_id, status=status, **kw)  # type: ignore[arg-type]


def reject(
    r: Reduction, act: SemanticAct, code: str, sentence: str, *, case: CaseRef | None = None
) -> None:
    """Record ``act`` as rejected with ``code`` and the user-facing ``sentence``."""
    record(
        r,
        act.id,
        ResultStatus.REJECTED,
        code=code,
        sentence=sentence,
        operation=act.operation,
        case=case,
    )


def clarify_arg(
    r: Reduction,
    act: SemanticAct,
    case: CaseRef,
    name: str,
    why: str,
    readings: tuple[date, ...] = (),
) -> None:
    """Record that ``act`` needs argument ``name``: ``why`` is missing, invalid or ambiguous.

    The sentence is the domain's question for the argument; an ambiguous date lists its
    ``readings`` instead (I8: asked, never guessed).
    """
    spec = r.registry.operation(act.operation or "")
    assert spec is not None
    argument = spec.argument(name)
    assert argument is not None
    workflow = r.registry.workflow(spec.workflow).definition
    question = workflow.ask_argument(spec, argument, r.inp.locale)
    if why == "ambiguous":
        locale = r.inp.locale
        label = argument.label_in(locale)
        sentence = r.say(
            "ambiguous_date",
            argument=label or name,
            options=readings_text(readings, r.inp.today, locale),
        )
    elif why == "missing":
        sentence = question
    else:
        sentence = (
            f"{r.say('invalid_value', argument=argument.label_in(r.inp.locale) or name)} {question}"
        )
    record(
        r,
        act.id,
        ResultStatus.NEEDS_CLARIFICATION,
        code=f"{why}:{name}",
        sentence=sentence,
        operation=act.operation,
        case=case,
        asks=name,
    )


def batches(r: Reduction) -> tuple[PlannedBatch, ...]:
    """Return the ready commands grouped by case and atomicity scope (I14).

    A batch from a card click is keyed by the card and option; any other by the turn
    and its act ids, so a replayed turn or click never commits twice.
    """
    groups: dict[tuple[CaseRef, str], list[Ready]] = {}
    for n, ready in enumerate(r.ready):
        scopes = {p.atomicity for p in ready.policies}
        key = "case" if scopes == {AtomicityScope.CASE} else f"cmd-{n}"
        groups.setdefault((ready.case, key), []).append(ready)
    batches = []
    for (case, _), items in groups.items():
        snap = r.inp.snapshots[case]
        act_ids = tuple(i.act_id for i in items)
        card = next((i.card for i in items if i.card is not None), None)
        key_source: tuple[str, ...] = (
            ("card", r.inp.actor.account, card[0], card[1], str(case))
            if card
            else ("turn", r.inp.actor.account, r.inp.turn_id, str(case), *act_ids)
        )
        idem = digest(key_source)
        envelopes = tuple(
            CommandEnvelope(
                command=command,
                case=case,
                actor=r.inp.actor,
                expected_revision=snap.revision,
                idempotency_key=idem,
                origin=item.origin,
                policy=policy,
                act_id=item.act_id,
            )
            for item in items
            for command, policy in zip(item.commands, item.policies, strict=True)
        )
        batches.append(
            PlannedBatch(
                case=case,
                expected_revision=snap.revision,
                new_case=any(i.new_case for i in items),
                envelopes=envelopes,
                act_ids=act_ids,
                card=card,
            )
        )
    return tuple(batches)
