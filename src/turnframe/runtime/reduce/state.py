"""The shared state of one turn's reduction: what every rule family reads and writes.

One :class:`Reduction` lives for one call of ``reduce_turn`` and is never shared between
turns; the rule families (``links``, ``constraints``, ``targets``, ``acts``, ``cards``,
``clicks``, ``waiting``, ``results``) are functions over it. Nothing here performs I/O
(import-linter contract ``reducer-is-pure``; docs/architecture.md).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, fields

from turnframe.core.commands import Command, CommandPolicy, DirectUserAct, Origin
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import Interaction, PendingAct, ProposedCommand
from turnframe.core.results import PlannedActResult
from turnframe.core.workflow import Executed, Replayed, WorkflowRegistry
from turnframe.runtime.copy import say
from turnframe.runtime.plan import CardClose, PlannedCard, ReductionInput, WaitingAct

__all__ = ["Awaiting", "Constraints", "Ready", "Reduction"]


@fast_init
@dataclass(frozen=True, slots=True)
class Constraints:
    """The turn's "do not submit" constraints as the reducer applies them (ADR 0002).

    Attributes:
        turn_dns: this turn's words say "do not submit" (either scope).
        standing: the standing constraint the plan records: ``True`` set now, ``False``
            lifted now, ``None`` unchanged.
        standing_active: a standing constraint holds for this turn's submissions.
    """

    turn_dns: bool = False
    standing: bool | None = None
    standing_active: bool = False


@dataclass(slots=True)
class Ready:
    """An act whose compiled commands commit in this turn (one per act, I14)."""

    act_id: str
    case: CaseRef
    new_case: bool
    commands: tuple[Command, ...]
    policies: tuple[CommandPolicy, ...]
    origin: Origin
    card: tuple[str, str] | None = None


@dataclass(slots=True)
class Awaiting:
    """An act waiting on this turn's Confirm card for its record (ADR 0004)."""

    pending: PendingAct
    operations: tuple[str, ...]
    review_role: str | None
    commands: tuple[ProposedCommand, ...] = ()
    excluded_reviewers: tuple[str, ...] = ()


@dataclass(slots=True)
class Reduction:
    """One turn's reduction in progress: its input, its constraints and what it decided.

    ``results`` keeps insertion order (the plan lists results in the order they were
    decided) and holds one result per item id (I11: the first decision stands).
    ``compiled`` holds, by ``(card id, option id)``, each act a click resumed and the
    commands it compiled to (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
    rule 10). ``carried`` holds, by case, what the case's last planned compilation
    handed back (:class:`~turnframe.core.workflow.Replayed`), for its next one;
    ``executed`` what the planned compilations executed
    (:class:`~turnframe.core.workflow.Executed`), for the policy step.
    """

    inp: ReductionInput
    registry: WorkflowRegistry
    constraints: Constraints = field(default_factory=Constraints)
    results: dict[str, PlannedActResult] = field(default_factory=dict)
    ready: list[Ready] = field(default_factory=list)
    awaiting: dict[CaseRef, list[Awaiting]] = field(default_factory=dict)
    prior: dict[CaseRef, list[Command]] = field(default_factory=lambda: defaultdict(list))
    carried: dict[CaseRef, Replayed] = field(default_factory=dict)
    direct: DirectUserAct | None = None
    cards: list[PlannedCard] = field(default_factory=list)
    closes: list[CardClose] = field(default_factory=list)
    notices: list[tuple[str, str, str | None]] = field(default_factory=list)
    ambiguous: int = 0
    lift_for_click: bool = False
    waiting: list[WaitingAct] = field(default_factory=list)
    earlier: dict[str, str] = field(default_factory=dict)
    superseded: set[str] = field(default_factory=set)
    dropped_waiting: set[str] = field(default_factory=set)
    withdrawn: set[str] = field(default_factory=set)
    remaining: list[tuple[Interaction, tuple[PendingAct, ...]]] = field(default_factory=list)
    replayed: Mapping[str, str] | None = None
    replayed_status: str | None = None
    compiled: dict[tuple[str, str], list[tuple[str, tuple[Command, ...]]]] = field(
        default_factory=dict
    )
    executed: list[Executed] = field(default_factory=list)

    def checkpoint(self) -> dict[str, object]:
        """Return a copy of everything this reduction decided so far, for :meth:`restore`.

        Containers are copied one level down (the lists inside ``awaiting`` and ``prior``
        too), so what is appended after the checkpoint is not in it; the items they hold
        are never changed in place. Used to undo a click whose compiled commands differ
        from the card's (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
        rule 10).
        """
        saved: dict[str, object] = {}
        for name in _field_names():
            value = getattr(self, name)
            if name == "prior":
                value = defaultdict(list, {k: list(v) for k, v in value.items()})
            elif name == "awaiting" or name == "compiled":
                value = {k: list(v) for k, v in value.items()}
            elif isinstance(value, _CONTAINERS):
                value = type(value)(value)
            saved[name] = value
        return saved

    def restore(self, saved: dict[str, object]) -> None:
        """Put back what :meth:`checkpoint` returned; later decisions are forgotten."""
        for name, value in saved.items():
            setattr(self, name, value)

    def direct_act(self) -> DirectUserAct:
        """Return the turn's one ``DirectUserAct`` origin (a frozen value, shared by its acts)."""
        if self.direct is None:
            self.direct = DirectUserAct(turn_id=self.inp.turn_id)
        return self.direct

    def say(self, key: str, **params: str) -> str:
        """Return the runtime's sentence ``key`` in the turn's locale (``runtime.copy``)."""
        return say(key, self.inp.locale, **params)


_CONTAINERS = (list, dict, set)
"""The container types :meth:`Reduction.checkpoint` copies one level down."""


@functools.cache
def _field_names() -> tuple[str, ...]:
    """Return the names of :class:`Reduction`'s fields, in declaration order (read once)."""
    return tuple(f.name for f in fields(Reduction))
