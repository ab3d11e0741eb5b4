"""Step 7, resolve targets: handles, words and clicks to authorised cases, no guess (I1, I8).

A mention that fits several records is :class:`~turnframe.core.targets.Ambiguous`; it
never resolves to the newest, first or most plausible one
(docs/adr/0001-ambiguous-target.md, docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from turnframe.core.acts import ProposedTarget, Question, SemanticAct
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef
from turnframe.core.interactions import Interaction
from turnframe.core.targets import (
    Ambiguous,
    Exact,
    NotFound,
    TargetCandidate,
    TargetResolution,
    Unauthorized,
)
from turnframe.core.turn import TurnInput
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import ActInput, ClickInput
from turnframe.runtime.records import authorized, find, fits, label, no_fit, record_args
from turnframe.runtime.snapshots import TurnSnapshots
from turnframe.runtime.turn import Loaded, QuestionRef, ResolvedAct

__all__ = [
    "ClickTurn",
    "QuestionsInput",
    "ResolveInput",
    "resolve_click",
    "resolve_questions",
    "resolve_target",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ResolveInput:
    """One act to resolve.

    Attributes:
        actor: who acts (authorisation is account-scoped).
        act: the act as understanding proposed it.
        turn: the turn's input (``origin_ref``).
        loaded: the turn's context (handles, labels, the snapshot cache to extend).
        today: the turn's today.
        locale: the turn's locale.
    """

    actor: Actor
    act: SemanticAct
    turn: TurnInput
    loaded: Loaded
    today: date
    locale: str


async def resolve_target(parts: RuntimeParts, data: ResolveInput) -> ResolvedAct:
    """Resolve the act's target and its record arguments named by handle.

    An act answering what the last reply asked for takes the waiting act's values on the
    same record (its own words win; docs/adr/0005-grounding.md).

    Raises:
        StoreError: a read failed.
    """
    act, loaded = data.act, data.loaded
    resolution = None
    if act.operation is not None:
        resolution = await _resolve(
            parts,
            data.actor,
            act.operation,
            act.target,
            loaded.handles,
            loaded.labels,
            data.turn,
            loaded.snapshots,
            data.today,
            data.locale,
        )
    records, bad = record_args(act.args, parts.registry, act.operation, loaded.handles)
    act, records, bad = _answering(act, resolution, records, bad, loaded.asked)
    return ResolvedAct(act=act, resolution=resolution, record_args=records, bad_args=bad)


async def _resolve(
    parts: RuntimeParts,
    actor: Actor,
    operation: str,
    target: ProposedTarget,
    handles: dict[str, CaseRef],
    labels: dict[CaseRef, str],
    turn: TurnInput,
    snapshots: TurnSnapshots,
    today: date,
    locale: str,
) -> TargetResolution:
    registry = parts.registry
    spec = registry.operation(operation)
    if target.new:
        if spec is None or not spec.creates_case:
            return NotFound(reason="not_creatable")
        case = CaseRef(spec.workflow, parts.ids.new_id(spec.workflow))
        await snapshots.load(case)
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
        op = spec.key if spec else None
        cases = await find(
            parts, actor, workflow, target.find, snapshots, today, locale, operation=op
        )
        if not cases and spec is not None:
            matched = await find(parts, actor, workflow, target.find, snapshots, today, locale)
            if len(matched) > 1:
                return NotFound(
                    reason="no_fit",
                    sentence=no_fit(registry, spec.key, None, spec.workflow, locale),
                )
            # One record named that does not fit: the reducer refuses it in the
            # domain's words for that record (no candidate to choose between).
            cases = matched
        for case in cases:
            labels.setdefault(case, snapshots[case].label)
    elif turn.origin_ref is not None:
        if not await authorized(parts, actor, turn.origin_ref, snapshots):
            return Unauthorized()
        cases = [turn.origin_ref]
        if turn.origin_ref not in snapshots:
            await snapshots.load(turn.origin_ref)
    if not cases:
        return NotFound(reason="no_target")
    for case in cases:
        if not await authorized(parts, actor, case, snapshots):
            return Unauthorized()
    if len(cases) > 1 and spec is not None:
        # Several records named: only those on which the operation is on offer now
        # are candidates; one that fits is used, none gives the domain's sentence.
        for case in cases:
            if case not in snapshots:
                await snapshots.load(case)
        fitting = [c for c in cases if fits(registry, actor, snapshots[c], spec.key, None)]
        if not fitting:
            return NotFound(
                reason="no_fit", sentence=no_fit(registry, spec.key, None, spec.workflow, locale)
            )
        cases = fitting
    if len(cases) == 1:
        return Exact(case=cases[0])
    return Ambiguous(
        candidates=tuple(TargetCandidate(case=c, label=label(c, snapshots, labels)) for c in cases)
    )


def _ref(text: Any) -> CaseRef | None:
    if not isinstance(text, str) or "/" not in text:
        return None
    workflow, _, case_id = text.partition("/")
    return CaseRef(workflow, case_id)


def _answering(
    act: SemanticAct,
    resolution: TargetResolution | None,
    record_args: dict[str, CaseRef],
    bad_args: dict[str, str],
    asked: Any,
) -> tuple[SemanticAct, dict[str, CaseRef], dict[str, str]]:
    """Complete the act the last reply asked a value for with what this message answers.

    The message is read as the answer (docs/architecture.md "Understanding"): an act of the waiting
    act's operation on its record takes the waiting act's values, and its own words win (the user's
    last word).
    """
    if (
        not isinstance(asked, dict)
        or not asked.get("argument")
        or act.operation != asked.get("operation")
        or not isinstance(resolution, Exact)
        or str(resolution.case) != asked.get("case")
    ):
        return act, record_args, bad_args
    carried = {
        k: ref for k, v in (asked.get("record_args") or {}).items() if (ref := _ref(v)) is not None
    }
    words = {k: str(v) for k, v in (asked.get("args") or {}).items()}
    evidence = {k: str(v) for k, v in (asked.get("evidence") or {}).items()}
    own = set(act.args)
    act = replace(
        act,
        args={**{k: v for k, v in words.items() if k not in own}, **act.args},
        evidence={**{k: v for k, v in evidence.items() if k not in own}, **act.evidence},
    )
    merged = {**{k: v for k, v in carried.items() if k not in own}, **record_args}
    return act, merged, {k: v for k, v in bad_args.items() if k not in merged or k in own}


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ClickTurn:
    """A click to resolve.

    Attributes:
        actor: who clicked.
        conversation_id: the conversation (the card is scoped to it).
        turn: the turn's input (its ``interaction_response`` is set).
        loaded: the turn's context (the snapshot cache to extend).
        today: the turn's today.
        locale: the turn's locale.
    """

    actor: Actor
    conversation_id: str
    turn: TurnInput
    loaded: Loaded
    today: date
    locale: str


def on_screen(cards: Sequence[Interaction], interaction_id: str) -> Interaction | None:
    """Return the card of ``cards`` whose id is ``interaction_id`` (``None``: none is).

    ``cards`` are the turn's cards on screen (``Loaded.cards``): the open cards of the
    turn's own account and conversation, as ``TurnStore.open_interactions`` read them
    this turn, so the card found is the one ``TurnStore.get_interaction`` would return
    for that account and conversation, read a step earlier.
    """
    for card in cards:
        if card.id == interaction_id:
            return card
    return None


async def resolve_click(parts: RuntimeParts, data: ClickTurn) -> ClickInput:
    """Return the clicked card and its pending acts resolved to authorised cases.

    A card another account or conversation holds looks missing (``interaction=None``,
    I16); every case the card's acts touch gets a fresh snapshot. A card open on screen
    when the turn loaded is the one the load step read (``Loaded.cards``, the turn's
    own account and conversation), not read again; any other id is asked of the store
    (``TurnStore.get_interaction``: closed, foreign or missing). Either way the commit
    closes the card by compare-and-set (``InteractionCas``): a card another tab
    answered since is refused there (I16, docs/adr/0016-races-and-turn-ids.md).

    Raises:
        StoreError: a read failed.
    """
    actor, snapshots = data.actor, data.loaded.snapshots
    response = data.turn.interaction_response
    assert response is not None
    card = on_screen(data.loaded.cards, response.interaction_id)
    if card is None:  # not open when the turn loaded: the store says what it is now
        card = await parts.store.get_interaction(
            actor.account, data.conversation_id, response.interaction_id
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
        if case not in snapshots:
            await snapshots.load(case)
        elif snapshots[case].state is None:
            await snapshots.refresh(case)
    case_revision = snapshots[card.spec.case].revision if card.spec.case else None
    pending = []
    for p in card.spec.pending:
        if p.argument is not None and option is not None and option.value is not None:
            # A Choice that fills a part argument: the act keeps its own target, and
            # the domain re-checks the part when the act compiles again.
            owned = p.case is not None and (
                p.new_case or await authorized(parts, actor, p.case, snapshots)
            )
            pending.append(
                ActInput(
                    act=p.act,
                    resolution=Exact(case=p.case, new=p.new_case)
                    if owned and p.case is not None
                    else Unauthorized(),
                    record_args=p.record_args,
                    part_args={**p.part_args, p.argument: option.value},
                )
            )
            continue
        if p.argument is not None and option is not None and option.case is not None:
            # A selection that fills a record argument: the act keeps its own target.
            chosen_arg: TargetResolution | None = None
            if p.case is not None and (
                p.new_case or await authorized(parts, actor, p.case, snapshots)
            ):
                if await authorized(parts, actor, option.case, snapshots):
                    chosen_arg = Exact(case=p.case, new=p.new_case)
            pending.append(
                ActInput(
                    act=p.act,
                    resolution=chosen_arg or Unauthorized(),
                    record_args={**p.record_args, p.argument: option.case},
                    part_args=p.part_args,
                )
            )
            continue
        chosen = option.case if option is not None and option.case is not None else p.case
        resolution: TargetResolution | None = None
        if chosen is not None:
            # A case this account's earlier turn minted (stored on its own card) is not in
            # the directory until its first commit; every other case must be authorised.
            minted = p.new_case and chosen == p.case
            if not minted and not await authorized(parts, actor, chosen, snapshots):
                resolution = Unauthorized()
            else:
                resolution = Exact(case=chosen, new=p.new_case and chosen == p.case)
        pending.append(
            ActInput(
                act=p.act,
                resolution=resolution,
                record_args=p.record_args,
                part_args=p.part_args,
            )
        )
    return ClickInput(
        response=response, interaction=card, case_revision=case_revision, pending=tuple(pending)
    )


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class QuestionsInput:
    """The turn's questions to resolve to the cases they ask about.

    Attributes:
        actor: who asks.
        questions: the questions understanding proposed.
        loaded: the turn's context (handles; the snapshot cache to extend).
        today: the turn's today.
        locale: the turn's locale.
    """

    actor: Actor
    questions: tuple[Question, ...]
    loaded: Loaded
    today: date
    locale: str


async def resolve_questions(parts: RuntimeParts, data: QuestionsInput) -> tuple[QuestionRef, ...]:
    """Return each question with the cases its target names (several allowed, ADR 0001 rule 5).

    Raises:
        StoreError: a read failed.
    """
    snapshots = data.loaded.snapshots
    out = []
    for q in data.questions:
        cases = await _question_cases(parts, data.actor, q, data.loaded.handles)
        for case in cases:
            if case not in snapshots:
                await snapshots.load(case)
        out.append(QuestionRef(id=q.id, topic=q.topic, basis=q.basis, cases=cases))
    return tuple(out)


async def _question_cases(
    parts: RuntimeParts, actor: Actor, question: Question, handles: dict[str, CaseRef]
) -> tuple[CaseRef, ...]:
    target = question.target
    if target is None:
        return ()
    if target.handles:
        return tuple(handles[h] for h in dict.fromkeys(target.handles) if h in handles)
    if target.find:
        return tuple(await parts.directory.find(actor, None, target.find))
    return ()
