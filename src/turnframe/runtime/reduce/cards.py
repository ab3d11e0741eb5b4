"""Cards the turn plans: Confirm, Review, selection and Choice cards (ADR 0003, ADR 0004, I8).

Acts waiting on the same candidates share one selection card; acts waiting on the same
parts of one record share one Choice card; every act awaiting confirmation on a record
joins that record's one Confirm card (ADR 0004). A prompt shows the commands as the domain
renders them (docs/adr/0013-cards-show-what-they-do.md).
"""

from __future__ import annotations

from dataclasses import replace

from turnframe.core.commands import Command, ConfirmedInteraction
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    OptionMeaning,
    PendingAct,
    ProposedCommand,
)
from turnframe.core.workflow import ErasedWorkflow, PartCandidate, WorkflowRegistry
from turnframe.runtime.copy import say
from turnframe.runtime.plan import PlannedCard
from turnframe.runtime.reduce.state import Reduction

__all__ = [
    "card_prompt",
    "plan_choice",
    "plan_confirm_cards",
    "plan_review_card",
    "plan_selection",
    "propose",
]


def card_prompt(
    registry: WorkflowRegistry,
    kind: InteractionKind,
    label: str,
    operations: tuple[str, ...],
    locale: str,
    commands: tuple[ProposedCommand, ...] = (),
) -> str:
    """Return the prompt of a Confirm or Review card on the record labelled ``label``.

    The runtime calls it again once the turn's commits are in, so a card always shows the
    record as it is when the card is bound (ADR 0003: never content the user did not see).
    ``commands`` are the card's proposed commands as the domain rendered them: the prompt
    shows each one with its arguments (docs/adr/0013-cards-show-what-they-do.md); the
    operations' summaries stand in only for a card that has none.
    """
    key = "review.prompt" if kind is InteractionKind.REVIEW else "confirm.prompt"
    text = _commands_text(commands) if commands else _operations_text(registry, operations, locale)
    return say(key, locale, label=label, operations=text)


def _commands_text(commands: tuple[ProposedCommand, ...]) -> str:
    return "; ".join(c.text.rstrip(".") for c in commands)


def _operations_text(registry: WorkflowRegistry, operations: tuple[str, ...], locale: str) -> str:
    parts = []
    for key in operations:
        spec = registry.operation(key)
        parts.append((spec.summary_in(locale) if spec else key).rstrip("."))
    return "; ".join(parts)


def propose(
    r: Reduction, workflow: ErasedWorkflow, state: object, commands: tuple[Command, ...]
) -> tuple[ProposedCommand, ...]:
    """Return ``commands`` as a card shows them, arguments rendered by the domain (ADR 0003)."""
    labels = {case: snap.label for case, snap in r.inp.snapshots.items()}
    return tuple(workflow.propose(state, c, r.inp.locale, labels) for c in commands)


def _select_prompt(
    r: Reduction,
    operation: str | None,
    candidates: tuple[CaseRef | None, ...],
    argument: str | None,
) -> str:
    """Return the selection question worded by the candidates' domain, else the runtime's."""
    spec = r.registry.operation(operation or "")
    workflows = {c.workflow for c in candidates if c is not None}
    if spec is not None and len(workflows) == 1:
        erased = r.registry.workflow(workflows.pop())
        arg = spec.argument(argument) if argument else None
        words = erased.select_prompt(spec, arg, r.inp.locale)
        if words:
            return words
    return r.say("select.prompt")


def plan_selection(
    r: Reduction, options: tuple[InteractionOption, ...], waiting: PendingAct
) -> None:
    """Plan a select_target card; acts waiting on the same candidates share one card."""
    cases = tuple(o.case for o in options)
    for n, planned in enumerate(r.cards):
        spec = planned.spec
        if spec.kind is InteractionKind.SELECT_TARGET and (
            tuple(o.case for o in spec.options) == cases
        ):
            spec = replace(
                spec,
                pending=(*spec.pending, waiting),
                operations=(*spec.operations, waiting.act.operation or ""),
            )
            r.cards[n] = PlannedCard(spec=spec, item_ids=(*planned.item_ids, waiting.act.id))
            return
    spec = InteractionSpec(
        kind=InteractionKind.SELECT_TARGET,
        case=None,
        prompt=_select_prompt(r, waiting.act.operation, cases, waiting.argument),
        options=options,
        independent=True,
        pending=(waiting,),
        operations=(waiting.act.operation or "",),
    )
    r.cards.append(PlannedCard(spec=spec, item_ids=(waiting.act.id,)))


def plan_choice(r: Reduction, parts: tuple[PartCandidate, ...], waiting: PendingAct) -> None:
    """Plan a Choice card over the parts the words name (several; never a guess, I8).

    Each option carries a part id as its ``value``; the card belongs to no case (like
    a selection), so it displaces no Confirm card. Acts waiting on the same parts of
    the same record share one card.
    """
    options = tuple(
        InteractionOption(id=p.id, label=p.label, meaning=OptionMeaning.SELECT, value=p.id)
        for p in parts
    )
    key = (waiting.case, tuple(p.id for p in parts))
    for n, planned in enumerate(r.cards):
        spec = planned.spec
        if (
            spec.kind is InteractionKind.CHOICE
            and spec.pending
            and ((spec.pending[0].case, tuple(o.value for o in spec.options)) == key)
        ):
            r.cards[n] = PlannedCard(
                spec=replace(
                    spec,
                    pending=(*spec.pending, waiting),
                    operations=(*spec.operations, waiting.act.operation or ""),
                ),
                item_ids=(*planned.item_ids, waiting.act.id),
            )
            return
    spec = InteractionSpec(
        kind=InteractionKind.CHOICE,
        case=None,
        prompt=r.say("choice.prompt"),
        options=options,
        independent=True,
        pending=(waiting,),
        operations=(waiting.act.operation or "",),
    )
    r.cards.append(PlannedCard(spec=spec, item_ids=(waiting.act.id,)))


def plan_confirm_cards(r: Reduction) -> None:
    """Plan one Confirm card per record for the acts awaiting confirmation on it (ADR 0004)."""
    for case, waiting in r.awaiting.items():
        snap = r.inp.snapshots[case]
        operations = tuple(op for w in waiting for op in w.operations)
        commands = tuple(c for w in waiting for c in w.commands)
        spec = InteractionSpec(
            kind=InteractionKind.CONFIRM,
            case=case,
            prompt=card_prompt(
                r.registry,
                InteractionKind.CONFIRM,
                snap.label,
                operations,
                r.inp.locale,
                commands,
            ),
            options=_confirm_options(
                r,
            ),
            bound_revision=snap.revision,
            pending=tuple(w.pending for w in waiting),
            operations=operations,
            commands=commands,
        )
        r.cards.append(PlannedCard(spec=spec, item_ids=tuple(w.pending.act.id for w in waiting)))


def _confirm_options(r: Reduction) -> tuple[InteractionOption, ...]:
    return (
        InteractionOption(
            id="confirm", label=r.say("option.confirm"), meaning=OptionMeaning.CONFIRM
        ),
        InteractionOption(
            id="decline", label=r.say("option.decline"), meaning=OptionMeaning.DECLINE
        ),
    )


def plan_review_card(
    r: Reduction,
    pending: PendingAct,
    commands: tuple[Command, ...],
    role: str,
    origin: ConfirmedInteraction,
    label: str,
    proposed: tuple[ProposedCommand, ...] = (),
    excluded: tuple[str, ...] = (),
) -> None:
    """Plan a Review card for a confirmed act whose policy needs a reviewer of ``role`` (I17).

    The card carries the confirmation chain (``confirmed_by``), the user ids its policies
    exclude from reviewing (``excluded``, checked on the click;
    docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 9) and is bound to
    the record's revision in this turn's snapshot.
    """
    assert pending.case is not None
    operations = tuple(c.operation for c in commands)
    snap = r.inp.snapshots[pending.case]
    spec = InteractionSpec(
        kind=InteractionKind.REVIEW,
        case=pending.case,
        prompt=card_prompt(
            r.registry, InteractionKind.REVIEW, label, operations, r.inp.locale, proposed
        ),
        commands=proposed,
        options=(
            InteractionOption(
                id="approve", label=r.say("option.approve"), meaning=OptionMeaning.APPROVE
            ),
            InteractionOption(
                id="reject", label=r.say("option.reject"), meaning=OptionMeaning.REJECT
            ),
        ),
        bound_revision=snap.revision,
        pending=(pending,),
        operations=operations,
        required_role=role,
        excluded_reviewers=excluded,
        confirmed_by=(*origin.confirmed_by, origin.interaction_id),
    )
    r.cards.append(PlannedCard(spec=spec, item_ids=(pending.act.id,)))
