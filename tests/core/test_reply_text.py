"""Every reply block kind has ``text`` (docs/architecture.md "Claims"; docs/authoring.md).

A reader prints a reply's words without branching on ``kind``; the chat renders with it;
the persisted JSON of a block is unchanged (``text`` is derived, never stored twice).
"""

from __future__ import annotations

import typing

from hypothesis import given
from hypothesis import strategies as st

from turnframe.cli.chat_session import render
from turnframe.core.events import Receipt
from turnframe.core.ids import CaseRef
from turnframe.core.reply import (
    AnswerBlock,
    ArtifactBlock,
    InteractionBlock,
    NoticeBlock,
    OptionView,
    ReceiptBlock,
    ReplyBlock,
    TransitionBlock,
)
from turnframe.store.codec import block_from_json, block_to_json

CASE = CaseRef(workflow="ticket", case_id="t1")
words = st.text(min_size=1, max_size=40).filter(lambda t: "\n" not in t and "\r" not in t)


def blocks(text: str) -> list[ReplyBlock]:
    """One block of every kind, each saying ``text``."""
    return [
        AnswerBlock(question_id="q1", topic="status", text=text),
        TransitionBlock(text=text),
        ReceiptBlock(
            receipt=Receipt(case=CASE, operation="ticket.close", text=text, event_ids=("ev-1",))
        ),
        NoticeBlock(code="not_authorized", text=text),
        InteractionBlock(
            interaction_id="card-1",
            interaction_kind="confirm",
            prompt=text,
            options=(OptionView(id="confirm", label="Confirm"),),
        ),
        ArtifactBlock(name="summary", media_type="text/plain", text=text),
    ]


def test_the_examples_cover_every_kind() -> None:
    kinds = set(typing.get_args(ReplyBlock))
    assert {type(b) for b in blocks("x")} == kinds


@given(text=words)
def test_every_kind_gives_its_words_as_text(text: str) -> None:
    for block in blocks(text):
        assert block.text == text, block.kind


@given(text=words)
def test_text_is_not_persisted_twice_and_survives_the_codec(text: str) -> None:
    for block in blocks(text):
        data = block_to_json(block)
        if block.kind in ("receipt", "interaction"):
            assert "text" not in data, block.kind
        again = block_from_json(data)
        assert again == block and again.text == text


def test_the_chat_renders_each_block_from_its_text() -> None:
    lines = render(blocks("Words."))
    assert lines == [
        "Words.",
        "Words.",
        "✔ Words.",
        "! Words.",
        "? Words.",
        "   1. Confirm",
        "Words.",
    ]
