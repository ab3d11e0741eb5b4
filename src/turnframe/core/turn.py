"""What enters a turn and what it streams out (docs/architecture.md "One turn" step 1, "Claims")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, TypeAlias

from turnframe.core.dataclass_init import fast_init
from turnframe.core.ids import CaseRef
from turnframe.core.reply import ReplyBlock

__all__ = [
    "Attachment",
    "Effort",
    "InteractionResponse",
    "TurnBlocks",
    "TurnEvent",
    "TurnFinished",
    "TurnInput",
    "TurnPhase",
    "TurnPhaseChanged",
    "TurnStep",
]


class Effort(StrEnum):
    """How hard understanding reads a message; never changes what policy allows."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionResponse:
    """A structured click: the client can never send an action (I7).

    Attributes:
        interaction_id: the card.
        option_id: one of its options.
        expected_revision: the revision the card showed.
        free_value: an optional free-form value.
    """

    interaction_id: str
    option_id: str
    expected_revision: int | None = None
    free_value: str | None = None


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Attachment:
    """A file attached to a turn; its content is data, never an instruction.

    Attributes:
        name: file name.
        media_type: media type.
        content: the bytes.
    """

    name: str
    media_type: str
    content: bytes


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnInput:
    """One turn's input: text and a click may coexist; a click alone needs no model.

    Attributes:
        text: the user's message, if any.
        interaction_response: a click, if any.
        attachments: attached files.
        origin_ref: a record the UI already knows exactly (removes ambiguity at the source).
        effort: forces an effort level for this turn.
        locale: the user's locale, e.g. ``"en"`` or ``"pt-PT"``.
    """

    text: str | None = None
    interaction_response: InteractionResponse | None = None
    attachments: tuple[Attachment, ...] = ()
    origin_ref: CaseRef | None = None
    effort: Effort | None = None
    locale: str = "en"


class TurnPhase(StrEnum):
    """The turn's phases (docs/architecture.md "Failures").

    The runtime persists three of them, which drive crash recovery: ``received``,
    ``committing`` (with the whole plan) and ``replied``. ``understood``, ``planned`` and
    ``committed`` are streamed as :class:`TurnPhaseChanged` events only, since recovery
    would treat each exactly like the persisted phase before it.
    """

    RECEIVED = "received"
    UNDERSTOOD = "understood"
    PLANNED = "planned"
    COMMITTING = "committing"
    COMMITTED = "committed"
    REPLIED = "replied"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnPhaseChanged:
    """The turn reached ``phase``."""

    turn_id: str
    phase: TurnPhase
    kind: Literal["phase"] = "phase"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStep:
    """One understanding or pipeline step was decided (``TurnEvent.Step``).

    Attributes:
        turn_id: the turn.
        name: the step (``segment``, ``route``, ``verify``...).
        detail: what was decided, for logs and inspection (unit ids, operation keys).
        text: the step said in the user's language for a preview, when the runtime's
            ``NarrationConfig.steps`` asks for it (never at ``low`` effort); else empty.
    """

    turn_id: str
    name: str
    detail: str = ""
    text: str = ""
    kind: Literal["step"] = "step"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnBlocks:
    """The reply's blocks, published only after commit."""

    turn_id: str
    blocks: tuple[ReplyBlock, ...]
    kind: Literal["blocks"] = "blocks"


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TurnFinished:
    """The turn ended."""

    turn_id: str
    kind: Literal["finished"] = "finished"


TurnEvent: TypeAlias = TurnPhaseChanged | TurnStep | TurnBlocks | TurnFinished
"""What a turn streams, in order: phases and steps, then blocks, then the end."""
