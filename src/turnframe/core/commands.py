"""Commands, their envelopes, origins and policies (I4, I12, I13, I17).

See docs/architecture.md "Commands".

There are exactly four :data:`Origin` variants, all issued by the server. There is no
variant a model proposal could produce, so no downstream code can construct one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol, TypeAlias, runtime_checkable

from turnframe.core.dataclass_init import fast_init
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
    "policy_at_least",
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
    """How consequential a command is. ``UNKNOWN`` is treated as the worst.

    See docs/architecture.md "Commands".
    """

    LOW = "low"
    REVERSIBLE = "reversible"
    MONETARY = "monetary"
    DESTRUCTIVE = "destructive"
    IRREVERSIBLE = "irreversible"
    UNKNOWN = "unknown"

    @property
    def high(self) -> bool:
        """Whether a confirmation of this risk may never be resolved from text (ADR 0006, I17)."""
        return self not in (RiskClass.LOW, RiskClass.REVERSIBLE)

    @property
    def requires_confirmation(self) -> bool:
        """Whether a command of this risk needs a Confirm card unless it opts out (I17).

        Monetary, destructive, irreversible and unknown commands do.
        """
        return self.high

    @property
    def may_opt_out(self) -> bool:
        """Whether a domain may explicitly run a command of this risk without a card.

        Only monetary and destructive ones; irreversible and unknown ones never may
        (docs/adr/0013-cards-show-what-they-do.md).
        """
        return self in (RiskClass.MONETARY, RiskClass.DESTRUCTIVE)

    @property
    def rank(self) -> int:
        """The order of severity: ``LOW`` 0 … ``UNKNOWN`` 5 (``policy_at_least``)."""
        return _RISK_ORDER.index(self)


_RISK_ORDER = (
    RiskClass.LOW,
    RiskClass.REVERSIBLE,
    RiskClass.MONETARY,
    RiskClass.DESTRUCTIVE,
    RiskClass.IRREVERSIBLE,
    RiskClass.UNKNOWN,
)


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
    """What a reply may claim after the command commits (docs/architecture.md "Claims", I19)."""

    RECEIPT = "receipt"
    """The committed events are the outcome."""
    EXTERNAL_STATUS = "external_status"
    """The effect is external: the reply claims only the external status reached so far."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CommandPolicy:
    """The policy of one command (docs/invariants.md I4, I17; docs/adr/0013-cards-show-what-they-do.md).

    Risk has teeth: a monetary, destructive, irreversible or unknown command needs a
    Confirm card even when ``confirmation`` says ``NONE``, unless a monetary or
    destructive one states ``opt_out`` (docs/adr/0013-cards-show-what-they-do.md).
    ``WorkflowRegistry.register`` refuses a declaration that relies on that upgrade
    (:meth:`problem`), so the rule is visible where the operation is declared.

    Attributes:
        risk: the risk class.
        confirmation: whether a Confirm card must be clicked.
        review_role: a role whose holder must resolve a Review card too (I17), if any.
        excluded_reviewers: user ids (``Actor.user``) that may not resolve the Review card
            even when they hold ``review_role`` (four eyes: the domain's ``policy`` names
            the submitter from its state). Only meaningful with ``review_role``; refused
            at registration without one
            (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 9).
        atomicity: how the command is grouped.
        claim_mode: what the reply may claim once it commits.
        opt_out: the domain's stated reason why a monetary or destructive command runs
            without a card (explicit and visible; journaled with every envelope).
            Ignored, and refused at registration, for irreversible and unknown risk.
    """

    risk: RiskClass
    confirmation: ConfirmationRequirement = ConfirmationRequirement.NONE
    review_role: str | None = None
    excluded_reviewers: tuple[str, ...] = ()
    atomicity: AtomicityScope = AtomicityScope.CASE
    claim_mode: ClaimMode = ClaimMode.RECEIPT
    opt_out: str | None = None

    @property
    def opted_out(self) -> bool:
        """Whether a valid explicit opt-out lets this risky command run without a card."""
        return bool(self.opt_out and self.opt_out.strip()) and self.risk.may_opt_out

    @property
    def needs_confirmation(self) -> bool:
        """Whether a Confirm card must be clicked: declared, or implied by the risk (I17)."""
        if self.confirmation is ConfirmationRequirement.CONFIRM:
            return True
        return self.risk.requires_confirmation and not self.opted_out

    @property
    def needs_card(self) -> bool:
        """Whether any card must be resolved before the command runs."""
        return self.needs_confirmation or bool(self.review_role)

    def problem(self) -> str | None:
        """Return why this declaration breaks the risk rule, or ``None`` when it holds.

        The sentence names the fix; ``WorkflowRegistry.register`` raises it as a
        :class:`~turnframe.core.errors.RiskPolicyError`.
        """
        confirmed = self.confirmation is ConfirmationRequirement.CONFIRM or bool(self.review_role)
        if self.excluded_reviewers and not self.review_role:
            return "excluded_reviewers applies to a Review card only: declare review_role too"
        if any(not user.strip() for user in self.excluded_reviewers):
            return "excluded_reviewers must name user ids, not blanks"
        if self.opt_out is not None:
            if not self.opt_out.strip():
                return "opt_out must state the reason in words, not be blank"
            if not self.risk.requires_confirmation:
                return f"{_article(self.risk.value)} command needs no confirmation; remove opt_out"
            if not self.risk.may_opt_out:
                return (
                    f"{_article(self.risk.value)} command may not opt out of confirmation; "
                    "remove opt_out and declare confirmation=CONFIRM"
                )
            if confirmed:
                return "opt_out contradicts the declared confirmation; keep one of them"
            return None
        if self.risk.requires_confirmation and not confirmed:
            hint = (
                "declare confirmation=CONFIRM or state opt_out='<reason>'"
                if self.risk.may_opt_out
                else "declare confirmation=CONFIRM (it may not opt out)"
            )
            return f"{_article(self.risk.value)} command needs a confirmation: {hint}"
        return None


def _article(word: str) -> str:
    """Return ``word`` after its English indefinite article (``an irreversible``)."""
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def policy_at_least(policy: CommandPolicy, floor: CommandPolicy) -> CommandPolicy:
    """Return ``policy`` made at least as strict as ``floor`` (the operation's declaration).

    The risk is the more severe of the two and a confirmation either requires is kept;
    the review role, atomicity and claim mode of ``policy`` win, ``floor``'s review role
    fills in when ``policy`` has none. The excluded reviewers are the union of both
    (``policy``'s first, in order): a run-time policy may add one, never drop the
    declaration's (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md rule 9).
    An opt-out survives only when no confirmation is required by either, and the declaration's opt-out covers ``policy`` only when
    ``policy`` itself is of a risk that needs none: a run-time policy of a risky class
    that states no opt-out of its own gets a card (docs/adr/0013-cards-show-what-they-do.md,
    I17).
    """
    risk = policy.risk if policy.risk.rank >= floor.risk.rank else floor.risk
    # A blank opt-out states no reason: it is no opt-out, and never hides the floor's.
    own_opt_out = policy.opt_out if policy.opt_out and policy.opt_out.strip() else None
    confirm = ConfirmationRequirement.CONFIRM in (policy.confirmation, floor.confirmation)
    merged = CommandPolicy(
        risk=risk,
        confirmation=ConfirmationRequirement.CONFIRM if confirm else ConfirmationRequirement.NONE,
        review_role=policy.review_role or floor.review_role,
        excluded_reviewers=tuple(
            dict.fromkeys((*policy.excluded_reviewers, *floor.excluded_reviewers))
        ),
        atomicity=policy.atomicity,
        claim_mode=policy.claim_mode,
        opt_out=None
        if confirm
        else own_opt_out or (None if policy.risk.requires_confirmation else floor.opt_out),
    )
    return policy if merged == policy else merged


CONSERVATIVE_POLICY = CommandPolicy(
    risk=RiskClass.UNKNOWN, confirmation=ConfirmationRequirement.CONFIRM
)
"""The policy of a command whose operation declares none (docs/adr/0013-cards-show-what-they-do.md): unknown, confirmed."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class DirectUserAct:
    """A low-risk act the user asked for in this turn, needing no card.

    Attributes:
        turn_id: the server-minted turn id.
    """

    turn_id: str
    kind: Literal["direct_user_act"] = "direct_user_act"


@fast_init
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
        clicked_by: the user id (``Actor.user``) whose click this is; checked against a
            policy's ``excluded_reviewers`` (docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
            rule 9).
            Empty only on an origin built before the field existed.
    """

    interaction_id: str
    option_id: str
    interaction_kind: str
    payload_hash: str
    confirmed_by: tuple[str, ...] = ()
    clicked_by: str = ""
    kind: Literal["confirmed_interaction"] = "confirmed_interaction"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PolicyDecision:
    """An internal policy decision (e.g. a scheduled expiry).

    Attributes:
        rule: the stable name of the rule that decided.
    """

    rule: str
    kind: Literal["policy_decision"] = "policy_decision"


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class CommandEnvelope:
    """A command ready to commit (docs/architecture.md "Commands").

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
