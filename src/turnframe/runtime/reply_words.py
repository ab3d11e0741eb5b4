"""The reply's words around the code-written blocks, and the guard they pass (I15).

Used by the compose step (:mod:`turnframe.runtime.steps.reply`): every sentence a model
writes is checked against the facts it cites (``runtime.claims``,
docs/adr/0017-no-claim-in-model-words.md); any failure keeps the code-written words.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from turnframe.core.reply import (
    AnswerBlock,
    InteractionBlock,
    NoticeBlock,
    ReceiptBlock,
    ReplyBlock,
    TransitionBlock,
)
from turnframe.runtime.claims import (
    ClaimVocabulary,
    Fact,
    FactKind,
    guard_sentence,
    guard_text,
)
from turnframe.runtime.parts import RuntimeParts, log
from turnframe.runtime.turn import PreparedTurn
from turnframe.understand.reply import AnswerFacts, ReplyFacts, ReplyWords, Sentence

__all__ = ["card_text", "guard_words", "words"]


async def words(
    parts: RuntimeParts, prepared: PreparedTurn, blocks: tuple[ReplyBlock, ...]
) -> tuple[tuple[ReplyBlock, ...], set[int], dict[str, Any]]:
    """Return the reply with the model's words, its model-written block ids, the record.

    Only a text turn gets words, and only with a writer. The facts are gathered from
    the code-written blocks (every one server-authored): receipts are what was done,
    notices about an item what was not, the transition the one thing to ask next.
    The acknowledgement takes the transition's place (or ends the reply); a model
    answer takes its code answer's place. Any failure keeps the code-written words:
    the turn has committed, so writing words may never fail it.
    """
    writer = parts.reply_writer
    if writer is None or not prepared.has_text:
        return blocks, set(), {}
    if any(n.startswith("model_unreachable") for n in prepared.understanding.notices):
        return blocks, set(), {}  # the model could not be reached: code's words only
    asks = next((b for b in blocks if isinstance(b, TransitionBlock)), None)
    facts = ReplyFacts(
        turn_id=prepared.turn_id,
        locale=prepared.locale,
        done=tuple(b.receipt.text for b in blocks if isinstance(b, ReceiptBlock)),
        not_done=tuple(
            b.text for b in blocks if isinstance(b, NoticeBlock) and b.item_id is not None
        ),
        notices=tuple(b.text for b in blocks if isinstance(b, NoticeBlock) and b.item_id is None),
        ask_next=asks.text if asks else None,
        cards=tuple(card_text(b) for b in blocks if isinstance(b, InteractionBlock)),
        answered=sum(isinstance(b, AnswerBlock) for b in blocks),
    )
    questions = [
        AnswerFacts(question_id=b.question_id, topic=b.topic, basis=b.basis, facts=b.text)
        for b in blocks
        if isinstance(b, AnswerBlock)
    ]
    try:
        words = await writer.write(facts, questions, prepared.effort)
    except Exception as exc:
        log.warning("reply words not written in turn %s: %s", prepared.turn_id, exc)
        return blocks, set(), {"error": f"{type(exc).__name__}: {exc}"}
    ack, answers, guard = guard_words(parts, prepared, facts, blocks, words)
    out: list[ReplyBlock] = []
    written: set[int] = set()
    for block in blocks:
        new: ReplyBlock = block
        if isinstance(block, AnswerBlock) and block.question_id in answers:
            new = replace(block, text=answers[block.question_id])
        elif isinstance(block, TransitionBlock) and ack:
            new = TransitionBlock(text=ack, asks=block.asks, case=block.case)
            ack = None
        if new is not block:
            written.add(id(new))
        out.append(new)
    if ack:
        out.append(TransitionBlock(text=ack))
        written.add(id(out[-1]))
    record: dict[str, Any] = {
        "words": words.trace,
        "calls": list(words.calls),
        "model_blocks": [n for n, b in enumerate(out) if id(b) in written],
        **({"guard": guard} if guard else {}),
    }
    return tuple(out), written, record


def guard_words(
    parts: RuntimeParts,
    prepared: PreparedTurn,
    facts: ReplyFacts,
    blocks: tuple[ReplyBlock, ...],
    words: ReplyWords,
) -> tuple[str | None, dict[str, str], list[dict[str, Any]]]:
    """Return the acknowledgement and answers that pass the word guard, and the drops.

    Every sentence is checked against the facts it cites (``runtime.claims``, I15,
    docs/adr/0017-no-claim-in-model-words.md) at every effort, whoever wrote it. A
    dropped sentence takes only itself; a dropped sentence that asked the next thing
    gives way to code's question; an acknowledgement left with nothing to say is
    dropped whole (the code-written transition stands). A dropped answer leaves the
    code-written answer.
    """
    vocabulary = ClaimVocabulary.from_registry(parts.registry)
    locale = prepared.locale
    receipts = [b for b in blocks if isinstance(b, ReceiptBlock)]
    kinds = {
        "done": FactKind.RECEIPT,
        "not_done": FactKind.REFUSAL,
        "notice": FactKind.NOTICE,
        "card": FactKind.CARD,
        "ask_next": FactKind.ASK_NEXT,
    }
    known: list[Fact] = []
    for ref, text in facts.refs().items():
        prefix, _, n = ref.partition(":")
        case = str(receipts[int(n) - 1].receipt.case) if prefix == "done" else None
        known.append(Fact(ref=ref, kind=kinds[prefix], text=text, case=case))
    drops: list[dict[str, Any]] = []
    sentences = words.sentences or (
        (Sentence(text=words.acknowledgement),) if words.acknowledgement else ()
    )
    kept: list[str] = []
    asked = False
    for sentence in sentences:
        problem = guard_sentence(sentence.text, sentence.about, known, vocabulary, locale)
        if problem:
            drops.append({"sentence": sentence.text, "dropped": problem})
            continue
        kept.append(sentence.text)
        asked = asked or "ask_next" in sentence.about
    if kept and facts.ask_next and not asked:
        kept.append(facts.ask_next)
    ack = " ".join(kept) if kept and kept != [facts.ask_next] else None
    answers: dict[str, str] = {}
    code_answers = {b.question_id: b.text for b in blocks if isinstance(b, AnswerBlock)}
    for question_id, text in words.answers.items():
        problem = guard_text(text, code_answers.get(question_id, ""), vocabulary, locale)
        if problem:
            drops.append({"answer": question_id, "text": text, "dropped": problem})
        else:
            answers[question_id] = text
    if drops:
        log.warning("word guard dropped %d text(s) in turn %s", len(drops), prepared.turn_id)
    return ack, answers, drops


def card_text(block: InteractionBlock) -> str:
    """Return a card block as the reply writer's facts show it: prompt and option labels."""
    return f"{block.prompt} [{' | '.join(o.label for o in block.options)}]"
