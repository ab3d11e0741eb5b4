"""Second readings: where a prompt admits a second reasonable reading, the user is told the truth.

Each test scripts the answers a reasonable model could give under that second reading
and asserts what the user gets: the right plan, a card or a notice, never a silent loss
or a wrong value (docs/adr/0018-decoder-enforceable-schemas.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anyio
from understand_kit import ACTOR, travel_runtime

from turnframe.core import TurnInput
from turnframe.core.reply import NoticeBlock, ReceiptBlock
from turnframe.providers import Capabilities, ModelRequest, ScriptedProvider
from turnframe.runtime.copy import say
from turnframe.understand import Merge, ModelUnderstanding
from turnframe.understand.prompts import prompt_text

Answer = Callable[[ModelRequest, Any], Any]

NONE = {"topic": None, "constraint": None, "card": None, "corrects": None, "cancels": None}


def _unit(uid: str, kind: str, a: int, b: int, *, hypothetical: bool = False) -> dict[str, Any]:
    return {
        "id": uid,
        "kind": kind,
        "from": a,
        "to": b,
        "hypothetical": hypothetical,
        "continues": None,
    }


def _ok(request: ModelRequest, data: Any) -> Any:
    del request, data
    return {"verdict": "ok", "grounding": "user", "findings": []}


def _fault(problem: str, argument: str | None, note: str) -> Any:
    finding = {"problem": problem, "argument": argument, "note": note}
    return {"verdict": "fault", "grounding": "user", "findings": [finding]}


def _candidate(data: Any, label: str) -> str:
    return next(c["handle"] for c in data["data"]["candidates"] if label in c["label"])


async def _turn(
    text: str,
    answers: dict[str, Answer],
    *,
    effort: str = "low",
    capabilities: Capabilities | None = None,
) -> tuple[Any, ScriptedProvider, Any]:
    def answer(request: ModelRequest) -> Any:
        data = json.loads(request.messages[1].content)
        if request.task not in answers:
            raise AssertionError(f"unexpected task {request.task}")
        return answers[request.task](request, data)

    provider = ScriptedProvider(answer, capabilities=capabilities)
    runtime, store, refs = await travel_runtime(
        ModelUnderstanding(provider, effort=effort, merge=Merge.NONE)
    )
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=text))
    return result, provider, (store, refs)


def _run(text: str, answers: dict[str, Answer], **kw: Any) -> tuple[Any, ScriptedProvider, Any]:
    return anyio.run(lambda: _turn(text, answers, **kw))


def _notices(result: Any) -> list[str]:
    return [b.code for b in result.blocks if isinstance(b, NoticeBlock)]


def _state(where: Any, key: str) -> Any:
    store, refs = where
    return anyio.run(store.load_case, refs[key]).state


def _rename_routes(request: ModelRequest, data: Any) -> Any:
    del request
    return {
        "routes": [{"unit": u["id"], "operations": ["trip.rename"], **NONE} for u in data["units"]]
    }


# --------------------------------------------------------------------- copies
def test_a_copy_with_the_punctuation_of_its_numbered_word_commits_the_bare_value() -> None:
    # "5:Summer." copied exactly as written (the first reading of "copy exactly").
    text = "Rename the Porto trip to Summer."
    result, _, where = _run(
        text,
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 5)]},
            "route": _rename_routes,
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
            "extract": lambda r, d: {
                "values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer."}]
            },
            "verify": _ok,
        },
    )
    assert result.results["a1"].status.value == "committed"
    assert _state(where, "T3")["name"] == "Summer"


def test_a_name_copied_with_its_comma_is_registered_without_it() -> None:
    # "3:Costa," copied exactly as written: the receipt must not read "Joana Costa,."
    text = "Register traveler Joana Costa, born 1990-03-04"
    result, _, _ = _run(
        text,
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 5)]},
            "route": lambda r, d: {
                "routes": [{"unit": "u1", "operations": ["traveler.register"], **NONE}]
            },
            "extract": lambda r, d: {
                "values": [
                    {"argument": "full_name", "from": 2, "to": 3, "copy": "Joana Costa,"},
                    {"argument": "birth_date", "from": 5, "to": 5, "copy": "1990-03-04"},
                ]
            },
            "verify": _ok,
        },
    )
    assert result.results["a1"].status.value == "committed"
    receipts = [b.receipt.text for b in result.blocks if isinstance(b, ReceiptBlock)]
    assert receipts and all("Costa," not in r for r in receipts), receipts
    assert any("Joana Costa" in r for r in receipts), receipts


def test_the_prompts_say_edge_punctuation_is_not_part_of_a_value() -> None:
    assert "punctuation" in prompt_text("_shared") and "code removes it" in prompt_text("_shared")
    assert "punctuation" in prompt_text("extract").casefold()
    # Segment and coverage have no copy field, so they ask for no copy.
    assert "copy" not in prompt_text("segment") and "copy" not in prompt_text("coverage")


# ---------------------------------------------------------------- corrections
def _verifier_reading_everything(request: ModelRequest, data: Any) -> Any:
    """A careful verifier that judges against every word it is shown."""
    del request
    shown = json.dumps(data)
    name = str(data["act"]["values"].get("name", {}).get("value")).strip(",.")
    if name == "Summer" and "Autumn" in shown:
        return _fault("not_requested", None, "the user changed the name to Autumn")
    return {"verdict": "ok", "grounding": "user", "findings": []}


def test_an_act_corrected_later_in_the_message_is_not_flagged_by_the_verifier() -> None:
    text = "Rename the Porto trip to Summer, no, call it Autumn"
    result, _, where = _run(
        text,
        {
            "segment": lambda r, d: {
                "units": [_unit("u1", "request", 0, 5), _unit("u2", "request", 6, 9)]
            },
            "route": lambda r, d: {
                "routes": [
                    {"unit": "u1", "operations": ["trip.rename"], **NONE},
                    {"unit": "u2", "operations": ["trip.rename"], **NONE, "corrects": "u1"},
                ]
            },
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
            "extract": lambda r, d: {
                "values": [
                    {"argument": "name", "from": 5, "to": 5, "copy": "Summer,"}
                    if d["for"] == "a1"
                    else {"argument": "name", "from": 9, "to": 9, "copy": "Autumn"}
                ]
            },
            "verify": _verifier_reading_everything,
        },
    )
    assert "unreadable" not in _notices(result)
    assert result.results["a1"].status.value == "superseded"
    assert result.results["a2"].status.value == "committed"
    assert _state(where, "T3")["name"] == "Autumn"


def test_verify_is_told_corrections_and_withdrawals_are_handled_elsewhere() -> None:
    text = prompt_text("verify")
    assert "only against its unit's words" in text and "withdrawal" in text


# -------------------------------------------------------------- hypotheticals
def test_a_hypothetical_read_as_a_question_with_no_topic_gets_a_notice() -> None:
    text = "What would happen if I cancelled the Porto trip?"
    result, _, _ = _run(
        text,
        {
            "segment": lambda r, d: {"units": [_unit("u1", "question", 0, 8)]},
            "route": lambda r, d: {"routes": [{"unit": "u1", "operations": [], **NONE}]},
        },
    )
    assert result.commands == ()
    assert "unanswerable" in _notices(result)
    texts = [b.text for b in result.blocks if isinstance(b, NoticeBlock)]
    assert say("unanswerable", "en") in texts


def test_a_hypothetical_read_as_a_request_is_never_done_and_is_said_to_be_hypothetical() -> None:
    text = "What would happen if I cancelled the Porto trip?"
    result, _, _ = _run(
        text,
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 8, hypothetical=True)]},
            "route": lambda r, d: {
                "routes": [{"unit": "u1", "operations": ["trip.cancel"], **NONE}]
            },
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
        },
    )
    assert result.commands == ()
    assert result.results["a1"].code == "hypothetical"
    assert "hypothetical request" in prompt_text("segment")


def test_the_unanswerable_notice_exists_in_every_locale() -> None:
    assert say("unanswerable", "en") != say("unanswerable", "pt-PT")
    assert say("step.unreadable", "en") != say("step.unreadable", "pt-PT")


# ------------------------------------------------------------------- "it"
def test_it_naming_a_record_said_earlier_is_that_record_or_a_card_never_a_guess() -> None:
    text = "Add insurance to the Porto trip and rename it to Summer"
    base: dict[str, Answer] = {
        "coverage": lambda r, d: {"missed": []},
        "segment": lambda r, d: {
            "units": [_unit("u1", "request", 0, 5), _unit("u2", "request", 7, 10)]
        },
        "route": lambda r, d: {
            "routes": [
                {"unit": "u1", "operations": ["trip.add_extra"], **NONE},
                {"unit": "u2", "operations": ["trip.rename"], **NONE},
            ]
        },
        "extract": lambda r, d: {
            "values": [
                {"argument": "kind", "from": 1, "to": 1, "copy": "insurance", "choice": "insurance"}
                if d["for"] == "a1"
                else {"argument": "name", "from": 10, "to": 10, "copy": "Summer"}
            ]
        },
        "verify": _ok,
    }
    # The reading the prompt now asks for: "it" is the Porto trip named before it.
    result, _, where = _run(
        text,
        {**base, "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None}},
    )
    assert result.results["a2"].status.value == "committed"
    assert _state(where, "T3")["name"] == "Summer"
    # The cautious reading ("never by recency"): every candidate → a card, not a guess.
    every = {
        **base,
        "locate": lambda r, d: {
            "handles": [c["handle"] for c in d["data"]["candidates"]],
            "find": None,
        },
    }
    result, _, _ = _run(text, every)
    assert result.results["a2"].status.value == "needs_clarification"
    assert result.interactions_created
    assert "refers back to a record the user named earlier" in prompt_text("locate")


# -------------------------------------------------------- what verify sees
def test_verify_sees_a_record_valued_argument_with_its_label() -> None:
    def verifier(request: ModelRequest, data: Any) -> Any:
        del request
        traveler = data["act"]["values"]["traveler"]
        if traveler.get("record_label") != "Ana Silva (1991-02-10)" and "Ana" not in str(
            traveler.get("record_label")
        ):
            return _fault("wrong_value", "traveler", "cannot tell who this handle is")
        return {"verdict": "ok", "grounding": "user", "findings": []}

    text = "Add Ana Silva to the Porto trip"
    result, _, _ = _run(
        text,
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 6)]},
            "route": lambda r, d: {
                "routes": [{"unit": "u1", "operations": ["trip.add_traveler"], **NONE}]
            },
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
            "extract": lambda r, d: {
                "values": [
                    {
                        "argument": "traveler",
                        "from": 1,
                        "to": 2,
                        "copy": "Ana Silva",
                        "record": next(
                            c["handle"]
                            for c in d["data"]["record_candidates"]["traveler"]
                            if "Ana" in c["label"]
                        ),
                        "literal": None,
                    }
                ]
            },
            "verify": verifier,
        },
    )
    assert "unreadable" not in _notices(result)
    assert result.results["a1"].status.value == "committed"


def test_verify_sees_an_ambiguous_target_as_records_the_user_will_choose_from() -> None:
    def verifier(request: ModelRequest, data: Any) -> Any:
        del request
        record = data["data"]["record"]
        if "one_of" not in record:  # "Lisbon / Lisbon" with no meaning given
            return _fault("wrong_record", None, "the act names two records")
        return {"verdict": "ok", "grounding": "user", "findings": []}

    result, _, _ = _run(
        "Add insurance to the Lisbon trip",
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 5)]},
            "route": lambda r, d: {
                "routes": [{"unit": "u1", "operations": ["trip.add_extra"], **NONE}]
            },
            "locate": lambda r, d: {
                "handles": [c["handle"] for c in d["data"]["candidates"] if "Lisbon" in c["label"]],
                "find": None,
            },
            "extract": lambda r, d: {
                "values": [
                    {
                        "argument": "kind",
                        "from": 1,
                        "to": 1,
                        "copy": "insurance",
                        "choice": "insurance",
                    }
                ]
            },
            "verify": verifier,
        },
    )
    assert "unreadable" not in _notices(result)
    assert result.results["a1"].code == "ambiguous_target"
    assert result.interactions_created


def test_knowledge_topics_are_shown_with_what_they_answer() -> None:
    seen: list[Any] = []

    def route(request: ModelRequest, data: Any) -> Any:
        seen.append(data["topics"])
        return {"routes": [{"unit": "u1", "operations": [], **NONE, "topic": "baggage_allowance"}]}

    _run(
        "How much baggage can I take?",
        {
            "segment": lambda r, d: {"units": [_unit("u1", "question", 0, 5)]},
            "route": route,
            "locate": lambda r, d: {
                "handles": [d["data"]["candidates"][0]["handle"]],
                "find": None,
            },
        },
    )
    topics = {t["topic"]: t.get("answers") for t in seen[0]}
    assert topics["baggage_allowance"] and "baggage" in topics["baggage_allowance"]


# ------------------------------------------------- what the schemas offer
def test_coverage_offers_no_card_answer_without_a_card_and_the_repair_keeps_the_request() -> None:
    calls: list[int] = []

    def coverage(request: ModelRequest, data: Any) -> Any:
        calls.append(1)
        kind = "card_answer" if len(calls) == 1 else "request"
        return {"missed": [{"from": 7, "to": 10, "kind": kind}]}

    def route(request: ModelRequest, data: Any) -> Any:
        ops = {"u1": ["trip.add_extra"], "u2": ["trip.rename"]}
        return {
            "routes": [{"unit": u["id"], "operations": ops[u["id"]], **NONE} for u in data["units"]]
        }

    result, provider, where = _run(
        "Add insurance to the Porto trip and rename it to Summer",
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 5)]},
            "coverage": coverage,
            "route": route,
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
            "extract": lambda r, d: {
                "values": [
                    {
                        "argument": "kind",
                        "from": 1,
                        "to": 1,
                        "copy": "insurance",
                        "choice": "insurance",
                    }
                    if d["for"] == "a1"
                    else {"argument": "name", "from": 10, "to": 10, "copy": "Summer"}
                ]
            },
            "verify": _ok,
        },
    )
    kinds = provider.requests[[r.task for r in provider.requests].index("coverage")].schema
    assert "card_answer" not in json.dumps(kinds)
    assert len(calls) == 2  # the off-contract card_answer got its repair round
    assert result.results["a2"].status.value == "committed"
    assert _state(where, "T3")["name"] == "Summer"


def test_a_unit_correcting_itself_is_off_contract_in_the_schema() -> None:
    answers = [
        {"routes": [{"unit": "u1", "operations": ["trip.rename"], **NONE, "corrects": "u1"}]},
        {"routes": [{"unit": "u1", "operations": ["trip.rename"], **NONE}]},
    ]
    result, provider, where = _run(
        "Rename the Porto trip to Summer",
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 5)]},
            "route": lambda r, d: answers.pop(0),
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
            "extract": lambda r, d: {
                "values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]
            },
            "verify": _ok,
        },
    )
    route_schema = next(r.schema for r in provider.requests if r.task == "route")
    assert "u1" not in json.dumps(
        route_schema["properties"]["routes"]["items"]["anyOf"][0]["properties"]["corrects"]
    )
    assert result.results["a1"].status.value == "committed"


def test_a_verifier_that_thinks_first_has_a_place_for_it_and_passes_first_time() -> None:
    def verifier(request: ModelRequest, data: Any) -> Any:
        del data
        return {
            "reasoning": "The unit asks to rename the trip to Summer; the value is Summer.",
            "verdict": "ok",
            "grounding": "user",
            "findings": [],
        }

    result, provider, _ = _run(
        "Rename the Porto trip to Summer",
        {
            "segment": lambda r, d: {"units": [_unit("u1", "request", 0, 5)]},
            "route": _rename_routes,
            "locate": lambda r, d: {"handles": [_candidate(d, "Porto")], "find": None},
            "extract": lambda r, d: {
                "values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]
            },
            "verify": verifier,
        },
        capabilities=Capabilities(reasoning_effort=False),
    )
    verifies = [r for r in provider.requests if r.task == "verify"]
    assert len(verifies) == 1  # no repair round
    assert list(verifies[0].schema["properties"])[0] == "reasoning"
    assert result.results["a1"].status.value == "committed"
