"""The reply's words: acknowledge, review and answer never weaken the blocks.

See docs/architecture.md "Claims".

Receipts stay code-rendered, model-written blocks carry no claims, a reply failing the
review twice is dropped and the code-written question stands in, ``low`` drops the
review, and any failure of the writer keeps the code-written reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
from understand_kit import ACTOR, travel_runtime

from turnframe.core import ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.core.acts import Question
from turnframe.core.reply import AnswerBlock, ReceiptBlock, TransitionBlock
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.runtime import Runtime
from turnframe.understand import Brief, ScriptedUnderstanding
from turnframe.understand.reply import ModelReplyWriter, ReplyFacts, review_checks


def _rename_porto(runtime: Runtime, refs: dict[str, Any]) -> Callable[[Brief], Understanding]:
    def build(brief: Brief) -> Understanding:
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.add_extra",
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, refs["T3"]),)),
                    args={"kind": "insurance"},
                ),
            ),
            questions=(
                Question(
                    id="q1",
                    topic="trip_summary",
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, refs["T3"]),)),
                ),
            ),
        )

    return build


def _answers(
    ack: list[str], review: list[bool], answer: str | None = None
) -> Callable[[ModelRequest], Any]:
    def respond(request: ModelRequest) -> Any:
        data = json.loads(request.messages[1].content)
        if request.task == "acknowledge":
            text = ack.pop(0) if len(ack) > 1 else ack[0]
            refs = [f["ref"] for f in data["data"]["on_screen"]]
            if "?" in text and data["data"]["ask_next"]:
                refs.append("ask_next")
            else:
                refs = [r for r in refs if r.startswith("done:")]
            return {"sentences": [{"text": text, "about": refs}]}
        if request.task == "review":
            ok = review.pop(0) if len(review) > 1 else review[0]
            return {"checks": {c: ok for c in data["checklist"]}}
        if request.task == "answer":
            return {"text": answer if answer is not None else data["data"]["facts"]}
        raise AssertionError(request.task)

    return respond


async def _turn(
    respond: Callable[[ModelRequest], Any], effort: str = "medium", text: str | None = "go"
) -> tuple[Any, ScriptedProvider, Any]:
    provider = ScriptedProvider(respond)
    script = ScriptedUnderstanding()
    runtime, store, refs = await travel_runtime(script)
    runtime.reply_writer = ModelReplyWriter(provider, effort=effort)
    script.push(_rename_porto(runtime, refs))
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=text))
    return result, provider, store


def _code_reply() -> Any:
    async def run() -> Any:
        script = ScriptedUnderstanding()
        runtime, _, refs = await travel_runtime(script)
        script.push(_rename_porto(runtime, refs))
        return await runtime.run_turn(ACTOR, "c1", TurnInput(text="go"))

    return anyio.run(run)


def test_a_reviewed_acknowledgement_takes_the_transition_place_and_receipts_stay() -> None:
    code = _code_reply()
    ack = "Insurance is on the trip. Who pays for it?"
    result, provider, store = anyio.run(_turn, _answers([ack], [True], "Porto: one extra."))
    kinds = [b.kind for b in result.blocks]
    assert kinds == [b.kind for b in code.blocks]
    receipts = [b for b in result.blocks if isinstance(b, ReceiptBlock)]
    assert receipts == [b for b in code.blocks if isinstance(b, ReceiptBlock)]
    transition = next(b for b in result.blocks if isinstance(b, TransitionBlock))
    code_transition = next(b for b in code.blocks if isinstance(b, TransitionBlock))
    assert transition.text == ack and transition.asks == code_transition.asks
    assert all(not b.claims for b in result.blocks if not isinstance(b, ReceiptBlock))
    assert sorted(r.task for r in provider.requests) == ["acknowledge", "answer", "review"]
    assert result.reply_calls == 3 and result.model_calls == 0
    record = anyio.run(store.load_replay, ACTOR.account, result.turn_id)
    assert record is not None and len(record["reply"]["calls"]) == 3
    # The acknowledgement is never shown the user's words.
    assert all('"go"' not in m.content for r in provider.requests for m in r.messages[1:])


def test_a_reply_failing_the_review_twice_is_dropped_and_the_code_question_stands() -> None:
    code = _code_reply()
    result, provider, _ = anyio.run(
        _turn, _answers(["Done, all booked and paid!", "All done."], [False, False])
    )
    words = [r for r in provider.requests if r.task != "answer"]
    assert [r.task for r in words] == ["acknowledge", "review", "acknowledge", "review"]
    again = json.loads(words[2].messages[1].content)
    assert again["read_again"]  # the second text is told which checks failed
    code_transition = next(b for b in code.blocks if isinstance(b, TransitionBlock))
    assert next(b for b in result.blocks if isinstance(b, TransitionBlock)) == code_transition


def test_low_effort_drops_the_review() -> None:
    words = "Added insurance to trip Porto."
    result, provider, _ = anyio.run(_turn, _answers([words], [False]), "low")
    assert "review" not in [r.task for r in provider.requests]
    # The words did not ask the next thing, so code's question follows them.
    transition = next(b for b in result.blocks if isinstance(b, TransitionBlock))
    assert (
        transition.text == f"{words} Who pays for extra E1: a traveler on the trip or the company?"
    )


def test_words_with_a_number_the_facts_do_not_hold_never_reach_the_reply() -> None:
    code = _code_reply()
    result, provider, _ = anyio.run(
        _turn, _answers(["Added for 99 euros."], [True], "It costs 99 euros.")
    )
    # One repair round each (the exact error), then the code-written words stand.
    tasks = [r.task for r in provider.requests]
    assert tasks.count("acknowledge") == 2 and tasks.count("answer") == 2
    assert "review" not in tasks
    assert [b for b in result.blocks if isinstance(b, TransitionBlock | AnswerBlock)] == [
        b for b in code.blocks if isinstance(b, TransitionBlock | AnswerBlock)
    ]


def test_a_failing_writer_keeps_the_code_written_reply() -> None:
    code = _code_reply()

    def broken(request: ModelRequest) -> Any:
        raise RuntimeError("provider exploded")

    result, _, store = anyio.run(_turn, broken)
    assert result.blocks == code.blocks
    record = anyio.run(store.load_replay, ACTOR.account, result.turn_id)
    assert "RuntimeError" in record["reply"]["error"]


def test_a_click_only_turn_gets_no_words_and_no_call() -> None:
    async def run() -> tuple[Any, ScriptedProvider]:
        provider = ScriptedProvider(_answers(["x"], [True]))
        script = ScriptedUnderstanding()
        runtime, _, refs = await travel_runtime(script)
        runtime.reply_writer = ModelReplyWriter(provider)
        from turnframe.core import InteractionResponse

        result = await runtime.run_turn(
            ACTOR,
            "c1",
            TurnInput(interaction_response=InteractionResponse(interaction_id="x", option_id="y")),
        )
        return result, provider

    result, provider = anyio.run(run)
    assert provider.requests == [] and result.reply_calls == 0


def test_the_review_asks_only_the_checks_that_apply() -> None:
    quiet = ReplyFacts(turn_id="t", locale="en", cards=("Which record? [A | B]",))
    assert review_checks(quiet) == (
        "nothing_done",
        "asks_nothing",
        "no_repeat",
        "no_new_facts",
        "language",
    )
    busy = ReplyFacts(
        turn_id="t", locale="en", done=("Done.",), not_done=("Refused.",), ask_next="Who?"
    )
    assert review_checks(busy) == (
        "claims_only_done",
        "not_done_stays_not_done",
        "asks_next",
        "asks_nothing_else",
        "no_repeat",
        "no_new_facts",
        "language",
    )


def test_hostile_words_never_change_what_the_reply_claims() -> None:
    from turnframe.testing.hostile import HostileProvider
    from turnframe.understand import ModelUnderstanding

    async def run() -> list[str]:
        provider = HostileProvider(11)
        runtime, _, _ = await travel_runtime(ModelUnderstanding(provider, effort="low"))
        runtime.reply_writer = ModelReplyWriter(provider)
        problems: list[str] = []
        texts = ["Add insurance to the Porto trip", "Rename the Porto trip to Summer", "yes"]
        for n in range(60):
            result = await runtime.run_turn(ACTOR, f"c{n // 10}", TurnInput(text=texts[n % 3]))
            event_ids = {e.id for e in result.events}
            for block in result.blocks:
                if isinstance(block, ReceiptBlock):
                    if not set(block.receipt.event_ids) <= event_ids:
                        problems.append(f"receipt without events: {block}")
                elif block.claims:
                    problems.append(f"words with a claim: {block}")
            if result.refused_blocks:
                problems.append(f"refused: {result.refused_blocks}")
        return problems

    assert anyio.run(run) == []
