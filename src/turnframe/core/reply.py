"""The reply: an ordered list of typed blocks, persisted exactly as returned.

Every block kind has ``text``, its words as a plain-text channel shows them (a receipt's
sentence, a card's question; the others hold theirs as a field), so a reader never
branches on ``kind`` for the words. See docs/architecture.md "Claims".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import Receipt
from turnframe.core.ids import CaseRef

__all__ = [
    "AnswerBlock",
    "ArtifactBlock",
    "Claim",
    "InteractionBlock",
    "NoticeBlock",
    "OptionView",
    "ReceiptBlock",
    "ReplyBlock",
    "TransitionBlock",
]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Claim:
    """An operational outcome a block asserts; valid only with committed event ids (I15).

    Attributes:
        operation: the operation asserted done.
        case: the case it was done to.
        event_ids: the committed events that prove it.
    """

    operation: str
    case: CaseRef
    event_ids: tuple[str, ...]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AnswerBlock:
    """An answer to one question, on an explicit basis.

    Attributes:
        question_id: the question it answers.
        topic: the question's topic.
        text: the answer.
        basis: what it was answered on.
    """

    question_id: str
    topic: str
    text: str
    basis: str = "current_state"
    kind: Literal["answer"] = "answer"

    @property
    def claims(self) -> tuple[Claim, ...]:
        """An answer asserts no operational outcome."""
        return ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class TransitionBlock:
    """Words that lead on: the one thing to ask next.

    Attributes:
        text: the words.
        asks: the argument or obligation id asked for, if any.
        case: the case it is about, if any.
    """

    text: str
    asks: str | None = None
    case: CaseRef | None = None
    kind: Literal["transition"] = "transition"

    @property
    def claims(self) -> tuple[Claim, ...]:
        """A transition asserts no operational outcome."""
        return ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ReceiptBlock:
    """An authoritative receipt rendered from committed events.

    Attributes:
        receipt: the receipt.
    """

    receipt: Receipt
    kind: Literal["receipt"] = "receipt"

    @property
    def text(self) -> str:
        """The receipt's sentence (rendered from its committed events)."""
        return self.receipt.text

    @property
    def claims(self) -> tuple[Claim, ...]:
        """The receipt's claim: its operation on its case, citing its event ids."""
        r = self.receipt
        return (Claim(operation=r.operation, case=r.case, event_ids=r.event_ids),)


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class NoticeBlock:
    """A notice: a refusal's own sentence, a standing constraint, an unreadable unit.

    Attributes:
        code: a stable code.
        text: the sentence.
        item_id: the act or question it concerns, if any.
    """

    code: str
    text: str
    item_id: str | None = None
    kind: Literal["notice"] = "notice"

    @property
    def claims(self) -> tuple[Claim, ...]:
        """A notice asserts no operational outcome."""
        return ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class OptionView:
    """An option as shown: id and server-written label only (I7)."""

    id: str
    label: str


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class InteractionBlock:
    """A persisted card as shown (I6: only ever built from a persisted interaction).

    Attributes:
        interaction_id: the persisted card's id.
        interaction_kind: its kind.
        prompt: the server-written question.
        options: ids and labels.
        expected_revision: the revision the client sends back with a click.
    """

    interaction_id: str
    interaction_kind: str
    prompt: str
    options: tuple[OptionView, ...]
    expected_revision: int | None = None
    kind: Literal["interaction"] = "interaction"

    @property
    def text(self) -> str:
        """The card's question (its options' labels are in ``options``)."""
        return self.prompt

    @property
    def claims(self) -> tuple[Claim, ...]:
        """A card asserts no operational outcome."""
        return ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class ArtifactBlock:
    """A server-produced artifact (a document, a summary table).

    Attributes:
        name: the artifact's name.
        media_type: its media type.
        text: its content.
    """

    name: str
    media_type: str
    text: str
    kind: Literal["artifact"] = "artifact"

    @property
    def claims(self) -> tuple[Claim, ...]:
        """An artifact asserts no operational outcome."""
        return ()


ReplyBlock: TypeAlias = (
    AnswerBlock | TransitionBlock | ReceiptBlock | NoticeBlock | InteractionBlock | ArtifactBlock
)
"""One block of the reply."""
