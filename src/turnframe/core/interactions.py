"""Durable interactions: cards whose options the server owns (I5–I7, I16, I17).

See docs/architecture.md "Cards", ADR 0001.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from turnframe.core.acts import SemanticAct
from turnframe.core.canonical import digest
from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef, JSONObject

__all__ = [
    "Interaction",
    "InteractionKind",
    "InteractionOption",
    "InteractionResolution",
    "InteractionSpec",
    "InteractionStatus",
    "OptionMeaning",
    "PendingAct",
    "ProposedCommand",
    "RenderedArgument",
]


class InteractionKind(StrEnum):
    """The kinds of card. A card of one kind never authorises what needs another (I17)."""

    SELECT_TARGET = "select_target"
    CONFIRM = "confirm"
    REVIEW = "review"
    CHOICE = "choice"


class OptionMeaning(StrEnum):
    """What clicking an option means, decided by the server (I7)."""

    SELECT = "select"
    CONFIRM = "confirm"
    DECLINE = "decline"
    APPROVE = "approve"
    REJECT = "reject"


class InteractionStatus(StrEnum):
    """The card's lifecycle.

    A card is ``open`` until it is resolved, declined, displaced by a newer card on its
    case (``superseded``), made out of date (``stale``) or withdrawn (ADR 0012).
    """

    OPEN = "open"
    RESOLVED = "resolved"
    DECLINED = "declined"
    SUPERSEDED = "superseded"
    STALE = "stale"
    WITHDRAWN = "withdrawn"
    """Closed because a later turn cancelled or corrected an act it carried (ADR 0012):
    it can never execute, and a click on it returns this resolution."""


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionOption:
    """One option of a card.

    Attributes:
        id: the option id the client sends back.
        label: the server-written label.
        meaning: what clicking it does.
        case: for a SelectTarget option, the candidate case it selects.
        value: for a Choice option, the id of the record's part it selects (the value
            of the pending act's ``PART`` argument; docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md).
    """

    id: str
    label: str
    meaning: OptionMeaning
    case: CaseRef | None = None
    value: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class PendingAct:
    """An act a card parks: resumed after a selection, or authorised by a confirmation.

    Handles die with their turn, so record arguments are stored resolved.

    Attributes:
        act: the act as understanding proposed it.
        case: its resolved target (``None`` while a SelectTarget card asks).
        record_args: argument name → the case a record argument resolved to.
        new_case: the act creates ``case``.
        argument: on a SelectTarget card, the record argument the chosen option fills
            (``None``: the option is the act's target); on a Choice card, the part
            argument the chosen option's ``value`` fills.
        part_args: part argument name → the part id it resolved to (re-checked by the
            domain when the act resumes).
    """

    act: SemanticAct
    case: CaseRef | None = None
    record_args: Mapping[str, CaseRef] = field(default_factory=dict)
    new_case: bool = False
    argument: str | None = None
    part_args: Mapping[str, str] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RenderedArgument:
    """One argument of a proposed command, as the domain renders it for a card (ADR 0003).

    Attributes:
        name: the key in the command's ``to_json()``.
        label: the argument's label in the card's locale (``"nights"``, ``"noites"``).
        value: the value as the domain renders it (``"3"``, ``"12 de maio de 2026"``,
            a traveler's candidate label).
    """

    name: str
    label: str
    value: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ProposedCommand:
    """A command a Confirm or Review card authorises, exactly as the card shows it (ADR 0003, I7).

    The card's payload hash covers ``arguments`` and ``text``: a card whose command
    changed in any argument is another card (docs/adr/0013-cards-show-what-they-do.md).

    Attributes:
        operation: the operation key.
        arguments: the command's ``to_json()``.
        text: the sentence the card shows, in the card's locale; it contains every
            rendered argument value.
        rendered: every argument with a value, as rendered into ``text``.
    """

    operation: str
    arguments: JSONObject
    text: str
    rendered: tuple[RenderedArgument, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionSpec:
    """What a card asks, as the reducer plans it; immutable once persisted (I7).

    Attributes:
        kind: the card's kind.
        case: the case it blocks; ``None`` for a selection across cases.
        prompt: the server-written question.
        options: the options, labels and meanings owned by the server.
        bound_revision: the case revision it is bound to (stale after any change).
        independent: the card declares independence of the case revision.
        pending: the acts it resumes or authorises.
        operations: the operations it authorises (a Confirm card lists every one, ADR 0004).
        required_role: the role whose holder must click (Review cards).
        excluded_reviewers: user ids that may not resolve it even with that role (a
            Review card's four eyes; docs/adr/0014-clicks-re-checked-and-candidates-that-fit.md
            rule 9). A card stored before the field existed loads with none.
        confirmed_by: earlier cards of the same chain (a Confirm before a Review).
        commands: on a Confirm or Review card, every command it authorises with its
            arguments as the domain rendered them (ADR 0003); the prompt shows their texts.
    """

    kind: InteractionKind
    case: CaseRef | None
    prompt: str
    options: tuple[InteractionOption, ...]
    bound_revision: int | None = None
    independent: bool = False
    pending: tuple[PendingAct, ...] = ()
    operations: tuple[str, ...] = ()
    required_role: str | None = None
    excluded_reviewers: tuple[str, ...] = ()
    confirmed_by: tuple[str, ...] = ()
    commands: tuple[ProposedCommand, ...] = ()

    def option(self, option_id: str) -> InteractionOption | None:
        """Return the option with ``option_id``, or ``None``."""
        for opt in self.options:
            if opt.id == option_id:
                return opt
        return None

    def payload_hash(self) -> str:
        """Return the SHA-256 of the canonical payload (hex, 64 characters)."""
        return digest(self)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionResolution:
    """How a card was resolved; a second click returns it unchanged.

    Attributes:
        option_id: the option that resolved it.
        turn_id: the turn that resolved it.
        user: who clicked.
        results: item id → result status name, as the resolving turn reported them.
    """

    option_id: str
    turn_id: str
    user: str
    results: Mapping[str, str] = field(default_factory=dict)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Interaction:
    """A persisted card.

    Attributes:
        id: server-minted id.
        account: the owning account; other accounts cannot see it.
        conversation_id: the owning conversation; other conversations cannot see it.
        turn_id: the turn that created it.
        spec: the immutable payload.
        payload_hash: ``spec.payload_hash()`` at creation.
        status: the lifecycle status.
        resolution: present once resolved or declined.
        seq: creation order within the conversation (1-based).
    """

    id: str
    account: str
    conversation_id: str
    turn_id: str
    spec: InteractionSpec
    payload_hash: str
    status: InteractionStatus = InteractionStatus.OPEN
    resolution: InteractionResolution | None = None
    seq: int = 0

    @property
    def blocking(self) -> bool:
        """Whether the card is the open blocking interaction of its case (I5)."""
        return self.status is InteractionStatus.OPEN and self.spec.case is not None
