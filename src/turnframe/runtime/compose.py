"""Code-written reply composition (docs/architecture.md "One turn" step 12, "Claims").

The reply is an ordered list of typed blocks: receipts (from committed events), notices
(each refusal's own sentence), answers (one per question), the persisted cards, and one
transition asking the one thing the work needs next. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from turnframe.core.dataclass_init import fast_init
from turnframe.core.events import Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import Interaction
from turnframe.core.reply import (
    AnswerBlock,
    InteractionBlock,
    NoticeBlock,
    OptionView,
    ReceiptBlock,
    ReplyBlock,
    TransitionBlock,
)
from turnframe.core.results import PlannedActResult, ResultStatus

__all__ = ["AskNext", "compose_reply"]


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class AskNext:
    """The one thing to ask next, chosen by code.

    Attributes:
        text: the question.
        asks: the argument or obligation id.
        item_id: the act waiting for the value asked, when it is an argument.
        operation: the operation that takes the answer (the waiting act's, or the one
            discharging the obligation), if any.
        case: the record the question is about, if any.
    """

    text: str
    asks: str
    item_id: str | None = None
    operation: str | None = None
    case: CaseRef | None = None


_NOTICE_STATUSES = (
    ResultStatus.REJECTED,
    ResultStatus.NO_CHANGE,
    ResultStatus.NEEDS_CLARIFICATION,
    ResultStatus.EXPIRED,
)


def compose_reply(
    *,
    results: Sequence[PlannedActResult],
    receipts: Sequence[Receipt],
    notices: Sequence[tuple[str, str, str | None]],
    answers: Sequence[AnswerBlock],
    cards: Sequence[Interaction],
    ask_next: AskNext | None,
) -> tuple[ReplyBlock, ...]:
    """Return the reply's blocks in order: receipts, notices, answers, cards, transition.

    Args:
        results: the turn's final results (refusals and clarifications become notices,
            except the one the transition asks).
        receipts: receipts rendered from committed events.
        notices: extra notices (code, sentence, item id).
        answers: one answer block per question.
        cards: cards that were persisted (I6: only persisted cards are shown).
        ask_next: the question for the transition, if any; dropped when a card is shown,
            since the card is then the one thing asked.

    Returns:
        The blocks; a receipt block per receipt, never a claim without one.
    """
    blocks: list[ReplyBlock] = [ReceiptBlock(receipt=r) for r in receipts]
    seen: set[str] = set()
    asked = ask_next.asks if ask_next else None
    for result in results:
        if result.status not in _NOTICE_STATUSES or not result.sentence:
            continue
        if result.asks is not None and result.asks == asked and not cards:
            continue
        if result.sentence in seen:
            continue
        seen.add(result.sentence)
        blocks.append(
            NoticeBlock(
                code=result.code or result.status.value,
                text=result.sentence,
                item_id=result.item_id,
            )
        )
    for code, text, item in notices:
        if text not in seen:
            seen.add(text)
            blocks.append(NoticeBlock(code=code, text=text, item_id=item))
    blocks.extend(answers)
    for card in cards:
        blocks.append(
            InteractionBlock(
                interaction_id=card.id,
                interaction_kind=card.spec.kind.value,
                prompt=card.spec.prompt,
                options=tuple(OptionView(id=o.id, label=o.label) for o in card.spec.options),
                expected_revision=card.spec.bound_revision,
            )
        )
    if ask_next is not None and not cards:
        blocks.append(TransitionBlock(text=ask_next.text, asks=ask_next.asks))
    return tuple(blocks)
