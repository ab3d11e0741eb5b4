"""The behaviour docs/guides/composition.md describes: who writes which part of a reply.

The code-written blocks come in a fixed order; a model sentence the claim guard refuses
is dropped alone and the receipt stands; a receipt citing no committed event is refused;
with no writer, or a writer that fails, the code-written words are the whole reply.
"""

from __future__ import annotations

from typing import Any

import anyio
from guides_kit import ANA, desk

from turnframe.core import ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.core.events import Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.interactions import (
    Interaction,
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    OptionMeaning,
)
from turnframe.core.reply import AnswerBlock, ReceiptBlock, TransitionBlock
from turnframe.core.results import PlannedActResult, ResultStatus
from turnframe.runtime.claims import guard_claims
from turnframe.runtime.compose import AskNext, compose_reply
from turnframe.understand.reply import ReplyWords, Sentence

CASE = CaseRef("expense_report", "r1")
CREATE = "expense_report.create"


def _card() -> Interaction:
    spec = InteractionSpec(
        kind=InteractionKind.CONFIRM,
        case=CASE,
        prompt="Please confirm.",
        options=(InteractionOption(id="confirm", label="Confirm", meaning=OptionMeaning.CONFIRM),),
        bound_revision=3,
    )
    return Interaction(
        id="card-1",
        account="acme",
        conversation_id="c1",
        turn_id="t1",
        spec=spec,
        payload_hash=spec.payload_hash(),
    )


def test_the_reply_blocks_come_in_order() -> None:
    receipt = Receipt(case=CASE, operation="o", text="Done it.", event_ids=("ev-1",))
    refused = PlannedActResult(
        item_id="a2", status=ResultStatus.REJECTED, code="x", sentence="Not that."
    )
    answer = AnswerBlock(question_id="q1", topic="t", basis="current_state", text="It is.")
    ask = AskNext(text="Which one?", asks="line")
    common: dict[str, Any] = {
        "results": (refused,),
        "receipts": (receipt,),
        "notices": (("card_replaced", "The earlier card was replaced.", None),),
        "answers": (answer,),
        "ask_next": ask,
    }
    with_card = compose_reply(**common, cards=(_card(),))
    assert [b.kind for b in with_card] == ["receipt", "notice", "notice", "answer", "interaction"]
    assert with_card[-1].expected_revision == 3  # type: ignore[union-attr]
    without = compose_reply(**common, cards=())
    assert [b.kind for b in without] == ["receipt", "notice", "notice", "answer", "transition"]
    assert without[-1].text == "Which one?"
    # a receipt block cites its events; no other block claims anything
    assert [c.event_ids for b in without for c in b.claims] == [("ev-1",)]


class _Boastful:
    """A writer adding a sentence no receipt says to a true one."""

    async def write(self, facts: Any, questions: Any, effort: str | None) -> ReplyWords:
        return ReplyWords(
            acknowledgement="unused",
            sentences=(
                Sentence(text=facts.done[0], about=("done:1",)),
                Sentence(text="I also paid the report.", about=("done:1",)),
            ),
        )


class _Failing:
    async def write(self, facts: Any, questions: Any, effort: str | None) -> ReplyWords:
        raise RuntimeError("the writer broke")


async def _create(writer: Any, locale: str = "en") -> Any:
    d = await desk()
    d.runtime.reply_writer = writer
    act = SemanticAct(
        id="a1", operation=CREATE, target=ProposedTarget(new=True), args={"title": "Porto"}
    )
    d.script.push(Understanding(acts=(act,)))
    turn = await d.runtime.run_turn(ANA, "c1", TurnInput(text="Open a report.", locale=locale))
    return turn, await d.store.load_replay("acme", turn.turn_id)


def test_the_claim_guard_drops_a_sentence_and_keeps_the_receipt() -> None:
    for locale in ("en", "pt-PT"):
        turn, record = anyio.run(_create, _Boastful(), locale)
        receipt, words = turn.blocks
        assert isinstance(receipt, ReceiptBlock) and isinstance(words, TransitionBlock)
        assert words.text == receipt.text  # the true sentence stands, alone
        assert "paid" not in " ".join(b.text for b in turn.blocks)
        (drop,) = record["reply"]["guard"]
        assert drop["sentence"] == "I also paid the report."
        assert drop["dropped"].startswith("uses words no cited fact holds")
        assert record["reply"]["model_blocks"] == [1]


def test_without_a_writer_or_with_a_failing_one_the_code_words_stand() -> None:
    plain, _ = anyio.run(_create, None)
    failed, record = anyio.run(_create, _Failing())
    assert [b.kind for b in plain.blocks] == ["receipt"]
    assert [(b.kind, b.text) for b in failed.blocks] == [(b.kind, b.text) for b in plain.blocks]
    assert "the writer broke" in record["reply"]["error"]


def test_a_receipt_is_shown_only_with_its_committed_events() -> None:
    turn, _ = anyio.run(_create, None)
    kept, refused = guard_claims(turn.blocks, turn.events)
    assert kept == turn.blocks and refused == ()
    kept, refused = guard_claims(turn.blocks, ())
    assert kept == () and refused == turn.blocks
