"""The word guard: no model sentence asserts an effect no receipt backs, at any effort (I15).

Issue 11 item 1. The guard (``runtime.claims.guard_sentence``) is run by the runtime on
every acknowledgement sentence and answer, whoever wrote them and whatever the effort;
these are its rules one by one, then the issue's own example end to end.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from test_reply_words import _rename_porto
from understand_kit import ACTOR, travel_runtime

from turnframe.core import TurnInput
from turnframe.core.reply import AnswerBlock, TransitionBlock
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.runtime.claims import ClaimVocabulary, Fact, FactKind, guard_sentence, guard_text
from turnframe.samples.travel import travel_application
from turnframe.understand import ScriptedUnderstanding
from turnframe.understand.reply import ModelReplyWriter, ReplyWords, Sentence

VOCABULARY = ClaimVocabulary.from_registry(travel_application().registry)
RECEIPT = Fact(ref="done:1", kind=FactKind.RECEIPT, text="Cancelled trip Porto.", case="trip/t3")
OTHER = Fact(
    ref="done:2", kind=FactKind.RECEIPT, text="Added insurance (E2) to trip Lisbon.", case="trip/t1"
)
REFUSAL = Fact(
    ref="not_done:1",
    kind=FactKind.REFUSAL,
    text="Nothing was submitted: you asked me not to submit yet.",
)
LISBON = Fact(
    ref="not_done:2", kind=FactKind.REFUSAL, text="That can't be done on trip Lisbon at this stage."
)
ASK = Fact(ref="ask_next", kind=FactKind.ASK_NEXT, text="Which trip do you want to rename?")
FACTS = (RECEIPT, OTHER, REFUSAL, LISBON, ASK)
PT_RECEIPT = Fact(
    ref="done:1", kind=FactKind.RECEIPT, text="Cancelei a viagem Porto.", case="trip/t3"
)


def check(text: str, about: tuple[str, ...], locale: str = "en", facts: Any = FACTS) -> str | None:
    return guard_sentence(text, about, facts, VOCABULARY, locale)


@pytest.mark.parametrize(
    ("text", "about"),
    [
        ("Cancelled trip Porto.", ("done:1",)),
        ("Trip Porto: cancelled.", ("done:1",)),
        ("Which trip do you want to rename?", ("ask_next",)),
        ("Thanks, and which one?", ()),
        ("Nothing was submitted.", ("not_done:1",)),
    ],
)
def test_words_of_the_facts_they_cite_are_shown(text: str, about: tuple[str, ...]) -> None:
    if text == "Nothing was submitted.":
        # A refusal's own words with an effect word are not shown either: only a
        # receipt backs an effect word (the notice says it already).
        assert check(text, about) is not None
    else:
        assert check(text, about) is None


@pytest.mark.parametrize(
    ("text", "about", "why"),
    [
        (
            "Done: I submitted the manifest to the airline and cancelled your trip.",
            ("done:1",),
            "words",
        ),
        ("I have gone ahead and cancelled trip Porto.", ("done:1",), "words"),
        ("Cancelled trip Lisbon.", ("done:1", "done:2"), "several records"),
        ("Cancelled trip Lisbon.", ("done:1", "not_done:2"), "not receipts"),
        ("Everything was submitted.", ("not_done:1",), "words"),
        ("You asked me to submit.", ("not_done:1",), "no cited receipt"),
        ("Porto cancelled trip.", ("done:1",), "no cited receipt says"),
        ("Submitted trip Porto.", ("done:1",), "words"),
        (
            "Which trip do you want to rename? Trip Porto renamed.",
            ("ask_next", "done:1"),
            "not receipts",
        ),
        ("Cancelled trip Porto.", ("done:9",), "not on offer"),
        ("Cancelled trip Porto.", (), "words"),
    ],
)
def test_a_sentence_asserting_what_no_cited_receipt_says_is_dropped(
    text: str, about: tuple[str, ...], why: str
) -> None:
    problem = check(text, about)
    assert problem is not None and why in problem, problem


def test_a_negation_or_a_tense_cannot_be_added_around_a_receipt_word() -> None:
    queued = Fact(
        ref="done:1",
        kind=FactKind.RECEIPT,
        text="Queued manifest TP for the airline. The airline has not confirmed anything yet.",
        case="manifest/d1",
    )
    assert (
        check("The airline has not confirmed anything yet.", ("done:1",), facts=(queued,)) is None
    )
    # Taking "not" out makes "has confirmed": the effect word loses the word before it.
    problem = check("The airline has confirmed manifest TP.", ("done:1",), facts=(queued,))
    assert problem is not None and "has confirmed" in problem


def test_pt_pt_words_are_guarded_the_same_way() -> None:
    facts = (PT_RECEIPT,)
    assert check("Cancelei a viagem Porto.", ("done:1",), "pt-PT", facts) is None
    for text in (
        "Feito: enviei o manifesto à companhia aérea e cancelei a sua viagem.",
        "Avancei e cancelei a viagem Porto.",
        "Já cancelei a viagem Porto.",
        "Não me esqueci de cancelar a viagem Porto.",
    ):
        assert check(text, ("done:1",), "pt-PT", facts) is not None, text


def test_an_answer_may_use_its_facts_words_only() -> None:
    facts = "If you cancel trip Porto now, nothing is charged."
    assert (
        guard_text("If you cancel trip Porto now, nothing is charged.", facts, VOCABULARY, "en")
        is None
    )
    assert guard_text("I cancelled trip Porto; nothing is charged.", facts, VOCABULARY, "en")
    assert guard_text(f"{facts} I have gone ahead and cancelled it.", facts, VOCABULARY, "en")


ISSUE_EXAMPLE = "Done: I submitted the manifest to the airline and cancelled your trip."


def _colluding(request: ModelRequest) -> Any:
    data = json.loads(request.messages[1].content)
    if request.task == "acknowledge":
        refs = [f["ref"] for f in data["data"]["on_screen"]] + ["ask_next"]
        return {"sentences": [{"text": ISSUE_EXAMPLE, "about": refs}]}
    if request.task == "review":
        return {"checks": {c: True for c in data["checklist"]}}  # the reviewer colludes
    return {"text": f"{data['data']['facts']} I have gone ahead and cancelled your trip."}


@pytest.mark.parametrize("effort", ["low", "medium", "high"])
def test_the_issue_example_never_reaches_the_user_at_any_effort(effort: str) -> None:
    async def main() -> tuple[Any, Any]:
        script = ScriptedUnderstanding()
        runtime, store, refs = await travel_runtime(script)
        runtime.reply_writer = ModelReplyWriter(ScriptedProvider(_colluding), effort=effort)
        script.push(_rename_porto(runtime, refs))
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="go"))
        return result, await store.load_replay(ACTOR.account, result.turn_id)

    result, record = anyio.run(main)
    texts = [getattr(b, "text", "") for b in result.blocks]
    assert not any("submitted" in t or "gone ahead" in t for t in texts), texts
    transition = next(b for b in result.blocks if isinstance(b, TransitionBlock))
    assert transition.text.startswith("Who pays for extra E1")  # code's question stands
    answer = next(b for b in result.blocks if isinstance(b, AnswerBlock))
    assert "gone ahead" not in answer.text
    dropped = [d["dropped"] for d in record["reply"]["guard"]]
    assert len(dropped) == 2 and all("words no cited fact holds" in d for d in dropped)


def test_a_writer_that_gives_only_a_text_is_read_as_citing_nothing() -> None:
    class Plain:
        async def write(self, facts: Any, questions: Any, effort: str | None) -> ReplyWords:
            return ReplyWords(acknowledgement="Added insurance (E1) to trip Porto.")

    class Cited:
        async def write(self, facts: Any, questions: Any, effort: str | None) -> ReplyWords:
            text = facts.done[0]
            return ReplyWords(
                acknowledgement=text, sentences=(Sentence(text=text, about=("done:1",)),)
            )

    async def main(writer: Any) -> Any:
        script = ScriptedUnderstanding()
        runtime, _, refs = await travel_runtime(script)
        runtime.reply_writer = writer
        script.push(_rename_porto(runtime, refs))
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="go"))
        return next(b for b in result.blocks if isinstance(b, TransitionBlock)).text

    assert anyio.run(main, Plain()).startswith("Who pays for extra E1")
    assert anyio.run(main, Cited()).startswith("Added insurance (E1) to trip Porto. Who pays")
