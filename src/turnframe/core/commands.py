"""Commands, their envelopes, origins and policies (guide §7, I4, I12, I13, I17).

There are exactly four :data:`Origin` variants, all issued by the server. There is no
variant a model proposal could produce, so no downstream code can construct one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from turnframe.core.ids import Actor, CaseRef, JSONObject

__all__ = [
    "CONSERVATIVE_POLICY",
    "AtomicityScope",
    "ClaimMode",
    "Command",
    "CommandEnvelope",
    "CommandPolicy",
    "ConfirmationRequirement",
    "ConfirmedInteraction",
    "DirectUserAct",
    "Origin",
    "PolicyDecision",
    "RiskClass",
    "VerifiedCallback",
    "origin_is_server_issued",
]


@runtime_checkable
class Command(Protocol):
    """A typed domain command. Domains define frozen dataclasses with these two members.

    Attributes:
        operation: the operation key it implements, e.g. ``"trip.add_extra"``.
    """

    @property
    def operation(self) -> str:
        """The operation key, e.g. ``"trip.add_extra"``."""
        ...

    def to_json(self) -> JSONObject:
        """Return the command's arguments as a JSON object (for hashing and the journal)."""
        ...


class RiskClass(StrEnum):
    """How consequential a command is (guide §7). ``UNKNOWN`` is treated as the worst."""

    LOW = "low"
    REVERSIBLE = "reversible"
    MONETARY = "monetary"
    DESTRUCTIVE = "destructive"
    IRREVERSIBLE = "irreversible"
    UNKNOWN = "unknown"

    @property
    def high(self) -> bool:
        """Whether a confirmation of this risk may never be resolved from text (D5, I17)."""
        return self not in (RiskClass.LOW, RiskClass.REVERSIBLE)


class ConfirmationRequirement(StrEnum):
    """What must happen before a command may run."""

    NONE = "none"
    CONFIRM = "confirm"


class AtomicityScope(StrEnum):
    """How commands are grouped into commits (I14)."""

    CASE = "case"
    """Every command on the case in this turn commits as one unit (the default)."""
    COMMAND = "command"
    """The domain models partial application: the command commits on its own."""


class ClaimMode(StrEnum):
    """What a reply may claim after the command commits (guide §9, I19)."""

    RECEIPT = "receipt"
    """The committed events are the outcome."""
    EXTERNAL_STATUS = "external_status"
    """The effect is external: the reply claims only the external status reached so far."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandPolicy:
    """The policy of one command (guide §7).

    Attributes:
        risk: the risk class.
        confirmation: whether a Confirm card must be clicked.
        review_role: a role whose holder must resolve a Review card too (I17), if any.
        atomicity: how the command is grouped.
        claim_mode: what the reply may claim once it commits.
    """

    risk: RiskClass
    confirmation: ConfirmationRequirement = ConfirmationRequirement.NONE
    review_role: str | None = None
    atomicity: AtomicityScope = AtomicityScope.CASE
    claim_mode: ClaimMode = ClaimMode.RECEIPT

    @property
    def needs_card(self) -> bool:
        """Whether any card must be resolved before the command runs."""
        return self.confirmation is not ConfirmationRequirement.NONE or bool(self.review_role)


CONSERVATIVE_POLICY = CommandPolicy(
    risk=RiskClass.UNKNOWN, confirmation=ConfirmationRequirement.CONFIRM
)
"""The policy of a command whose workflow declares none (guide §7)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DirectUserAct:
    """A low-risk act the user asked for in this turn, needing no card.

    Attributes:
        turn_id: the server-minted turn id.
    """

    turn_id: str
    kind: Literal["direct_user_act"] = "direct_user_act"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmedInteraction:
    """A card of a specific kind, clicked (I16, I17).

    Attributes:
        interaction_id: the card.
        option_id: the option clicked.
        interaction_kind: the card's kind (``confirm``, ``review``…); checked per command.
        payload_hash: the hash of the card's immutable payload.
        confirmed_by: interaction ids of earlier cards in the same chain (a Confirm
            before a Review).
    """

    interaction_id: str
    option_id: str
    interaction_kind: str
    payload_hash: str
    confirmed_by: tuple[str, ...] = ()
    kind: Literal["confirmed_interaction"] = "confirmed_interaction"


@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyDecision:
    """An internal policy decision (e.g. a scheduled expiry).

    Attributes:
        rule: the stable name of the rule that decided.
    """

    rule: str
    kind: Literal["policy_decision"] = "policy_decision"


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifiedCallback:
    """An external callback whose authenticity was verified before it became an origin.

    Attributes:
        source: the external system, e.g. ``"airline"``.
        reference: the external reference it carried.
    """

    source: str
    reference: str
    kind: Literal["verified_callback"] = "verified_callback"


Origin: TypeAlias = DirectUserAct | ConfirmedInteraction | PolicyDecision | VerifiedCallback
"""The four server-issued origins (I4). None can express "the model asked for it"."""

_ORIGIN_TYPES = (DirectUserAct, ConfirmedInteraction, PolicyDecision, VerifiedCallback)


def origin_is_server_issued(origin: object) -> bool:
    """Return whether ``origin`` is one of the four server-issued variants (I4)."""
    return type(origin) in _ORIGIN_TYPES


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandEnvelope:
    """A command ready to commit (guide §7).

    Attributes:
        command: the typed domain command.
        case: the case it applies to.
        actor: who.
        expected_revision: the case revision it was planned against (I12).
        idempotency_key: derived from the turn's stable inputs (I13).
        origin: the server-issued origin (I4).
        policy: the command's policy.
        act_id: the act it was compiled from.
    """

    command: Command
    case: CaseRef
    actor: Actor
    expected_revision: int
    idempotency_key: str
    origin: Origin
    policy: CommandPolicy
    act_id: str

    @property
    def operation(self) -> str:
        """The command's operation key."""
        return self.command.operation
