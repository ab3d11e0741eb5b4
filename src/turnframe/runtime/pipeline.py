"""The turn pipeline, composed (docs/architecture.md "The pipeline in the code").

One turn: accept → load and project → domain check, brief, understand (text turns) →
resolve and look up each act; resolve the click → reduce the whole turn (pure) → apply
policy (commit requests, unwritten) → journal the plan → commit (the plan stored with
phase ``committing`` and every commit, in one write) → persist cards → re-project →
compose → record the reply (phase ``replied``). Every step runs through :func:`step`, the
one place its telemetry span goes (docs/telemetry.md).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from turnframe.core.ids import Actor, CaseRef
from turnframe.core.turn import TurnInput, TurnPhase
from turnframe.runtime.errors import TurnInterrupted, UnknownTurn
from turnframe.runtime.metrics import IDEMPOTENT_REPLAYS
from turnframe.runtime.observe import observe_turn
from turnframe.runtime.parts import RuntimeParts
from turnframe.runtime.plan import ReductionInput
from turnframe.runtime.steps.accept import TurnRequest, accept, alias, input_from_json, stored
from turnframe.runtime.steps.after_commit import fallback_reply, report_failure
from turnframe.runtime.steps.brief import BriefInput, brief
from turnframe.runtime.steps.cards import persist_cards
from turnframe.runtime.steps.commit import CommitInput, commit
from turnframe.runtime.steps.domain_check import DomainCheckInput, domain_check
from turnframe.runtime.steps.journal import PlanInput, journal
from turnframe.runtime.steps.load import LinkedInput, LoadInput, load, load_linked_cards
from turnframe.runtime.steps.look_up import LookUpInput, look_up
from turnframe.runtime.steps.policy import PolicyInput, apply_policy
from turnframe.runtime.steps.record import RecordInput, record
from turnframe.runtime.steps.reduction import reduce
from turnframe.runtime.steps.reply import ComposeInput, compose
from turnframe.runtime.steps.reproject import ReprojectInput, reproject
from turnframe.runtime.steps.resolve import (
    ClickTurn,
    QuestionsInput,
    ResolveInput,
    resolve_click,
    resolve_questions,
    resolve_target,
)
from turnframe.runtime.steps.understand import understand
from turnframe.runtime.turn import (
    PersistedCards,
    PreparedTurn,
    Reprojected,
    TurnResult,
    Understood,
)
from turnframe.runtime.turn_writes import stored_plan
from turnframe.store.errors import StoreError

__all__ = ["TurnRequest", "finish", "recover", "run_begun", "run_turn", "step"]

_In = TypeVar("_In")
_Out = TypeVar("_Out")


async def step(
    name: str,
    run: Callable[[RuntimeParts, _In], Awaitable[_Out]],
    parts: RuntimeParts,
    data: _In,
) -> _Out:
    """Run the pipeline step ``name``: ``await run(parts, data)`` in the step's span.

    The single hook every step passes through (docs/telemetry.md "Spans"); it lets every
    error of the step through unchanged (the span keeps only its class name).
    """
    with parts.telemetry.step(name):
        return await run(parts, data)


async def run_turn(parts: RuntimeParts, request: TurnRequest) -> TurnResult:
    """Accept the turn and run it (or return its stored result when it already replied).

    Returns:
        The turn's result under ``request.turn_id``, whatever id it is stored under.

    Raises:
        TurnInterrupted: a store boundary failed; ``recover(turn_id)`` resumes it.
        TurnIdReused: the id names an unfinished turn, or one with another input.
    """
    given = request.turn_id
    with parts.telemetry.turn(given, entry="run"):
        try:
            accepted = await step("accept", accept, parts, request)
        except StoreError as exc:
            raise TurnInterrupted(given, TurnPhase.RECEIVED.value, str(exc)) from exc
        if accepted.replied is not None:
            parts.metrics.count(IDEMPOTENT_REPLAYS, labels={"kind": "turn"})
            return accepted.replied
        key = accepted.key
        try:
            result = await run_begun(
                parts, request.actor, request.conversation_id, request.turn, request.in_view, key
            )
        except TurnInterrupted as exc:
            if key == given:
                raise
            cause = exc.__cause__ or exc
            raise TurnInterrupted(given, exc.phase, str(cause)) from exc
        return result if key == given else replace(result, turn_id=given)


async def run_begun(
    parts: RuntimeParts,
    actor: Actor,
    conversation_id: str,
    turn: TurnInput,
    in_view: Sequence[CaseRef] | None,
    turn_id: str,
) -> TurnResult:
    """Run the begun turn ``turn_id`` from load to reply (steps 2–12).

    Raises:
        TurnInterrupted: a store boundary failed (the phase the turn is in).
    """
    today = parts.clock.today()
    locale = turn.locale or parts.app.default_locale
    phase = TurnPhase.RECEIVED
    try:
        parts.phase_changed(turn_id, phase)
        loaded = await step(
            "load",
            load,
            parts,
            LoadInput(
                actor=actor,
                conversation_id=conversation_id,
                turn=turn,
                turn_id=turn_id,
                today=today,
                locale=locale,
                in_view=in_view,
            ),
        )
        understood = Understood()
        if turn.text:
            check = await step(
                "domain_check",
                domain_check,
                parts,
                DomainCheckInput(
                    actor=actor,
                    handles=loaded.handles,
                    snapshots=loaded.snapshots,
                    today=today,
                    locale=locale,
                ),
            )
            shown = await step(
                "brief",
                brief,
                parts,
                BriefInput(
                    actor=actor,
                    turn_id=turn_id,
                    turn=turn,
                    today=today,
                    locale=locale,
                    loaded=loaded,
                    check=check,
                ),
            )
            understood = await step("understand", understand, parts, shown)
        parts.phase_changed(turn_id, TurnPhase.UNDERSTOOD)
        acts = []
        for act in understood.understanding.acts:
            resolved = await step(
                "resolve",
                resolve_target,
                parts,
                ResolveInput(
                    actor=actor, act=act, turn=turn, loaded=loaded, today=today, locale=locale
                ),
            )
            acts.append(
                await step(
                    "look_up",
                    look_up,
                    parts,
                    LookUpInput(
                        actor=actor, resolved=resolved, loaded=loaded, today=today, locale=locale
                    ),
                )
            )
        click = None
        if turn.interaction_response is not None:
            click = await step(
                "resolve",
                resolve_click,
                parts,
                ClickTurn(
                    actor=actor,
                    conversation_id=conversation_id,
                    turn=turn,
                    loaded=loaded,
                    today=today,
                    locale=locale,
                ),
            )
        linked_cards = await step(
            "load",
            load_linked_cards,
            parts,
            LinkedInput(
                actor=actor,
                conversation_id=conversation_id,
                understanding=understood.understanding,
                loaded=loaded,
                today=today,
                locale=locale,
            ),
        )
        # The reducer reads through a view that records what it read: the reduction
        # record keeps only those snapshots (docs/adr/0020-what-a-brief-shows.md rule 4).
        read = loaded.snapshots.recording()
        reduction = ReductionInput(
            turn_id=turn_id,
            actor=actor,
            today=today,
            locale=locale,
            understanding=understood.understanding,
            acts=tuple(acts),
            snapshots=read,
            click=click,
            cards_on_screen=loaded.cards,
            standing_do_not_submit=loaded.standing_before,
            waiting=loaded.waiting,
            linked_cards=linked_cards,
        )
        plan = await step("reduce", reduce, parts, reduction)
        parts.phase_changed(turn_id, TurnPhase.PLANNED)
        compiled = await step(
            "policy",
            apply_policy,
            parts,
            PolicyInput(
                turn_id=turn_id,
                actor=actor,
                today=today,
                locale=locale,
                plan=plan,
                snapshots=loaded.snapshots,
            ),
        )
        questions = await step(
            "resolve",
            resolve_questions,
            parts,
            QuestionsInput(
                actor=actor,
                questions=understood.understanding.questions,
                loaded=loaded,
                today=today,
                locale=locale,
            ),
        )
        prepared = await step(
            "journal",
            journal,
            parts,
            PlanInput(
                turn_id=turn_id,
                conversation_id=conversation_id,
                actor=actor,
                turn=turn,
                understood=understood,
                acts=acts,
                reduction=replace(reduction, snapshots=read.subset()),
                plan=plan,
                compiled=compiled,
                questions=questions,
                standing_before=loaded.standing_before,
                seen=loaded.snapshots,
            ),
        )
    except StoreError as exc:
        raise TurnInterrupted(turn_id, phase.value, str(exc)) from exc
    return await finish(parts, prepared, handles=loaded.handles)


async def finish(
    parts: RuntimeParts,
    prepared: PreparedTurn,
    *,
    resumed: bool = False,
    handles: Mapping[str, CaseRef] | None = None,
) -> TurnResult:
    """Commit, persist cards, re-project, compose and record the reply. Idempotent.

    ``resumed``: recovery finishing a plan stored before (it is not stored again).
    ``handles``: the turn's handle table, for the result (server-side; none on recovery).

    Recovery of a turn stored as ``committing`` starts here (docs/architecture.md "Recovery and concurrency").

    Raises:
        TurnInterrupted: a store boundary failed (``committing`` or ``committed``).
        StoreError: a read while persisting cards or re-projecting failed.
    """
    committed = await step("commit", commit, parts, CommitInput(prepared=prepared, resumed=resumed))
    # After commit nothing may wedge the turn: a failure of the domain's code in the
    # steps that only report (cards, receipts, words) gives a generic reply instead
    # (runtime/steps/after_commit.py); a store failure still interrupts the turn.
    cards: PersistedCards | None = None
    projected: Reprojected | None = None
    name = "persist_cards"
    try:
        cards = await step("persist_cards", persist_cards, parts, committed)
        name = "reproject"
        projected = await step(
            "reproject", reproject, parts, ReprojectInput(committed=committed, cards=cards)
        )
        name = "compose"
        composed = await step(
            "compose",
            compose,
            parts,
            ComposeInput(
                prepared=committed.prepared,
                reprojected=projected,
                cards=cards.created,
                events=committed.events,
            ),
        )
    except (StoreError, TurnInterrupted):
        raise
    except Exception as exc:  # reported, counted, and the turn replies
        report_failure(parts, prepared.turn_id, name, exc)
        if cards is None:
            cards = PersistedCards(
                created=(), results=dict(committed.results), notices=list(committed.notices)
            )
        projected, composed = fallback_reply(parts, committed, cards.created, projected)
    await step(
        "record",
        record,
        parts,
        RecordInput(
            committed=committed,
            results=projected.results,
            cards=cards.created,
            ask_next=projected.ask_next,
            composed=composed,
        ),
    )
    result = TurnResult(
        turn_id=prepared.turn_id,
        conversation_id=prepared.conversation_id,
        blocks=composed.blocks,
        results=projected.results,
        commits=committed.commits,
        events=tuple(e for c in committed.commits for e in c.events),
        interactions_created=cards.created,
        model_calls=prepared.model_calls,
        refused_blocks=composed.refused,
        handles=handles if handles is not None else {},
        commands=committed.commands,
        reply_calls=len(composed.record.get("calls", ())),
    )
    observe_turn(parts, committed.prepared, composed, result)
    return result


async def recover(parts: RuntimeParts, actor: Actor, turn_id: str) -> TurnResult:
    """Resume a turn from its persisted phase (``Runtime.recover``).

    docs/architecture.md "Recovery and concurrency": ``received`` runs the turn again from its stored input; ``committing`` (or
    ``committed``) resumes the stored plan at :func:`finish`; ``replied`` returns the
    stored reply and results.

    Raises:
        UnknownTurn: no such turn for this account.
        TurnInterrupted: a store boundary failed again.
    """
    with parts.telemetry.turn(turn_id, entry="recover"):
        record = await parts.store.get_turn(actor.account, turn_id)
        if record is None:
            record = await parts.store.get_turn(actor.account, alias(actor.account, turn_id))
        if record is None:
            raise UnknownTurn(f"no turn {turn_id}")
        if record.phase in (TurnPhase.COMMITTING.value, TurnPhase.COMMITTED.value):
            prepared = await stored_plan(parts.store, record.data)
            result = await finish(parts, prepared, resumed=True)
        elif record.phase == TurnPhase.REPLIED.value:
            result = await stored(parts, actor, record)
        else:
            turn, in_view = input_from_json(record.input)
            result = await run_begun(
                parts, actor, record.conversation_id, turn, in_view, record.turn_id
            )
        return result if record.turn_id == turn_id else replace(result, turn_id=turn_id)
