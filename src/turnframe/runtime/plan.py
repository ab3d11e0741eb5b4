"""The reducer's input and output: a whole turn before anything runs (I10).

See docs/architecture.md "Reduction".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from turnframe.core.acts import SemanticAct, Understanding
from turnframe.core.canonical import NOT_CANONICAL
from turnframe.core.commands import CommandEnvelope
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.interactions import (
    Interaction,
    InteractionSpec,
    InteractionStatus,
    PendingAct,
)
from turnframe.core.results import PlannedActResult
from turnframe.core.targets import TargetCandidate, TargetResolution
from turnframe.core.turn import InteractionResponse
from turnframe.core.view import WorkflowView
from turnframe.core.workflow import Executed

__all__ = [
    "ActInput",
    "CardClose",
    "CaseSnapshot",
    "ClickInput",
    "Plan",
    "PlannedBatch",
    "PlannedCard",
    "ReductionInput",
    "WaitingAct",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CaseSnapshot:
    """A loaded, projected case.

    Attributes:
        case: the case.
        state: the typed state (``None``: not created yet).
        state_json: the stored JSON state.
        revision: the stored revision (0 when absent).
        view: the projection.
        label: the candidate label.
    """

    case: CaseRef
    state: Any
    state_json: JSONObject | None
    revision: int
    view: WorkflowView
    label: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ActInput:
    """An act with what the runtime resolved for it before reduction.

    Attributes:
        act: the act.
        resolution: its target resolution (``None`` for an act without an operation).
        record_args: record arguments resolved to cases.
        bad_args: argument name → why its value could not be read.
        awaits: record argument name → the words naming a record nobody registered
            (``CaseDirectory.find`` found none): the act waits for it (ADR 0007).
        choices: record argument name → the records its words could name (found by
            ``CaseDirectory.find``, several): a selection card asks which.
        part_args: part argument name → the part id already chosen (on a Choice card
            or a confirmed card); the domain re-checks it when the act compiles.
    """

    act: SemanticAct
    resolution: TargetResolution | None
    record_args: Mapping[str, CaseRef] = field(default_factory=dict)
    bad_args: Mapping[str, str] = field(default_factory=dict)
    awaits: Mapping[str, str] = field(default_factory=dict)
    choices: Mapping[str, tuple[TargetCandidate, ...]] = field(default_factory=dict)
    part_args: Mapping[str, str] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class WaitingAct:
    """An act carried from reply to reply until a record the user named exists (ADR 0007).

    Attributes:
        item_id: its result key, ``<turn id>:<act id>`` of the turn that read it.
        pending: the act with its resolved target and record arguments.
        argument: the record argument it waits to fill.
        workflow: the workflow of the record it waits for.
        name: the words the user named that record by.
    """

    item_id: str
    pending: PendingAct
    argument: str
    workflow: str
    name: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ClickInput:
    """A structured click, with the card it names as the store returned it.

    Attributes:
        response: what the client sent.
        interaction: the card, ``None`` when missing or foreign (indistinguishable).
        case_revision: the current revision of the card's case, if it has one.
        pending: the card's pending acts as reduction inputs (targets resolved).
    """

    response: InteractionResponse
    interaction: Interaction | None
    case_revision: int | None = None
    pending: tuple[ActInput, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReductionInput:
    """Everything the reducer reads. Pure data.

    Attributes:
        turn_id: the turn.
        actor: who acts.
        today: the turn's today.
        locale: the reply's locale.
        understanding: the proposal (empty for a click-only turn).
        acts: the proposal's acts with their resolutions, in order.
        snapshots: every case the turn touches.
        click: the structured click, if any.
        cards_on_screen: the conversation's open cards.
        standing_do_not_submit: a standing "do not submit" is in force (ADR 0002).
        waiting: acts carried from earlier replies, oldest first (ADR 0007).
        linked_cards: cards no longer open that this turn's links name (a link to one of
            their acts is answered ``already_committed`` or ``no_longer_pending``,
            ADR 0012).
    """

    turn_id: str
    actor: Actor
    today: date
    locale: str
    understanding: Understanding
    acts: tuple[ActInput, ...]
    snapshots: Mapping[CaseRef, CaseSnapshot]
    click: ClickInput | None = None
    cards_on_screen: tuple[Interaction, ...] = ()
    standing_do_not_submit: bool = False
    waiting: tuple[WaitingAct, ...] = ()
    linked_cards: tuple[Interaction, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedBatch:
    """Commands that commit as one unit (I14).

    Attributes:
        case: the case.
        expected_revision: the revision planned against (I12).
        new_case: the batch creates the case.
        envelopes: the commands.
        act_ids: the acts they came from.
        card: (interaction id, option id) of the card this commit resolves, if any.
    """

    case: CaseRef
    expected_revision: int
    new_case: bool
    envelopes: tuple[CommandEnvelope, ...]
    act_ids: tuple[str, ...]
    card: tuple[str, str] | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PlannedCard:
    """A card to persist before the reply refers to it (I6).

    Attributes:
        spec: the card (``bound_revision`` is set by the runtime after commits).
        item_ids: the acts waiting on it.
    """

    spec: InteractionSpec
    item_ids: tuple[str, ...]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CardClose:
    """A card closed without a command (declined, stale, withdrawn, selection resumed).

    A ``withdrawn`` close goes into the same store transaction as the turn's first
    commit (ADR 0012).

    Attributes:
        interaction_id: the card.
        status: the new status.
        option_id: the option that closed it (empty for stale).
        results: item id → result label reported.
    """

    interaction_id: str
    status: InteractionStatus
    option_id: str
    results: Mapping[str, str]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """The execution plan. Nothing in it has happened yet.

    Attributes:
        results: one result per act, question, card answer and resumed act (I11).
        batches: commits to attempt, one per case and atomicity scope.
        cards: cards to persist.
        closes: cards to close without a command.
        standing_do_not_submit: the new standing constraint value, ``None`` if unchanged.
        notices: (code, sentence, item id) notices the reply carries.
        ambiguous: how many times an ambiguous target blocked an act (metric).
        replayed_click: the click hit a card no longer open; its original results.
        replayed_status: that card's status (``resolved``, ``declined``, ``withdrawn``…).
        waiting: the acts to carry to the next reply, oldest first, at most three (ADR 0007).
        executed: what the reducer's compilations executed on the way
            (:class:`~turnframe.core.workflow.Executed`), for the policy step to reuse;
            not part of what the plan decided: left out of equality and of its canonical
            JSON (the replay record), and empty in a plan read back from JSON.
    """

    results: tuple[PlannedActResult, ...]
    batches: tuple[PlannedBatch, ...] = ()
    cards: tuple[PlannedCard, ...] = ()
    closes: tuple[CardClose, ...] = ()
    standing_do_not_submit: bool | None = None
    notices: tuple[tuple[str, str, str | None], ...] = ()
    ambiguous: int = 0
    replayed_click: Mapping[str, str] | None = None
    replayed_status: str | None = None
    waiting: tuple[WaitingAct, ...] = ()
    executed: tuple[Executed, ...] = field(
        default=(), compare=False, repr=False, metadata=NOT_CANONICAL
    )
