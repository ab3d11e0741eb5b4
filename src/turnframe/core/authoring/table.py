"""Declarative operation and offer tables (docs/authoring.md#tables).

An :class:`Op` row names an operation by its command class and declares its summary
and policy; the :class:`~turnframe.core.operations.OperationSpec` (key, workflow,
arguments) is derived from the command, so no name is written twice. An offer table maps
a phase to the operations on offer in it, optionally per role (:class:`Offer`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TypeAlias

from turnframe.core.authoring.command import TypedCommand
from turnframe.core.commands import (
    ClaimMode,
    CommandPolicy,
    ConfirmationRequirement,
    RiskClass,
)
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import Actor
from turnframe.core.operations import OperationSpec

__all__ = ["LOW", "REVERSIBLE", "Offer", "OfferTable", "Op", "confirm", "offered_keys"]

LOW = CommandPolicy(risk=RiskClass.LOW)
"""A low-risk operation: it runs on the user's direct act (docs/invariants.md I17)."""

REVERSIBLE = CommandPolicy(risk=RiskClass.REVERSIBLE)
"""A reversible operation: it runs on the user's direct act."""


def confirm(
    risk: RiskClass = RiskClass.DESTRUCTIVE,
    *,
    review_role: str | None = None,
    excluded_reviewers: tuple[str, ...] = (),
    claim_mode: ClaimMode = ClaimMode.RECEIPT,
) -> CommandPolicy:
    """Return the policy of a ``risk`` operation that runs only after a Confirm card (I17).

    ``review_role`` adds a Review card only a holder of that role resolves;
    ``excluded_reviewers`` names user ids that may never resolve it (fixed ids; for the
    record's own submitter override ``Workflow.excluded_reviewers`` instead,
    docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 9).
    """
    return CommandPolicy(
        risk=risk,
        confirmation=ConfirmationRequirement.CONFIRM,
        review_role=review_role,
        excluded_reviewers=excluded_reviewers,
        claim_mode=claim_mode,
    )


@fast_init
@dataclass(frozen=True, slots=True)
class Op:
    """One row of a workflow's operation table: ``Op(Close, "Close the ticket.", policy=...)``.

    Attributes:
        command: the command class (a :class:`TypedCommand`); its ``OPERATION`` is the key
            and its fields the arguments.
        summary: the one-sentence English summary.
        summaries: per-locale summaries (``{"pt-PT": "..."}``).
        policy: the declared policy (default: low risk; checked at registration, I17).
        creates_case: whether the operation brings the case into existence.
        submission: whether a "do not submit" constraint blocks it (ADR 0002).
    """

    command: type[TypedCommand]
    summary: str
    _: KW_ONLY
    summaries: Mapping[str, str] = field(default_factory=dict)
    policy: CommandPolicy = LOW
    creates_case: bool = False
    submission: bool = False

    @property
    def key(self) -> str:
        """The operation key, from the command class."""
        return self.command.OPERATION

    def spec(self) -> OperationSpec:
        """Return the operation spec this row declares (arguments from the command).

        Raises:
            UsageError: for a command field whose type has no argument kind.
        """
        return OperationSpec(
            key=self.key,
            workflow=self.key.partition(".")[0],
            summary=self.summary,
            summaries=dict(self.summaries),
            arguments=self.command.arguments(),
            creates_case=self.creates_case,
            submission=self.submission,
            policy=self.policy,
        )


@dataclass(frozen=True, slots=True)
class Offer:
    """An operation on offer only to actors holding one of ``roles``.

    Attributes:
        key: the operation key.
        roles: the roles that may do it (an actor with any one of them).
    """

    key: str
    roles: frozenset[str] = frozenset()

    def __init__(self, key: str, *roles: str) -> None:
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "roles", frozenset(roles))


OfferTable: TypeAlias = Mapping[str, Sequence[str | Offer]]
"""Phase → the operations on offer in it (a key for everyone, an :class:`Offer` per role)."""


def offered_keys(table: OfferTable, phase: str, actor: Actor) -> tuple[str, ...]:
    """Return the keys ``table`` offers ``actor`` in ``phase`` (docs/invariants.md I2)."""
    keys = []
    for entry in table.get(phase, ()):
        if isinstance(entry, str):
            keys.append(entry)
        elif entry.roles & actor.roles:
            keys.append(entry.key)
    return tuple(keys)
