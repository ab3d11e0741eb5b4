"""Answers that break parsers, not checks, are ordinary invalid answers (issue 11 item 8).

A 100,000-deep answer, a 200,000-item array, a megabyte string and a 30,000-character
field each get exactly one repair round and then a notice; never a ``RecursionError``,
never a turn left unfinished, and no verdict, repair prompt or notice quotes the answer
in bulk (docs/adr/0019-local-model-and-answer-bounds.md).
"""

from __future__ import annotations

import json
import random
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_hostile_provider import _good
from understand_kit import ACTOR, travel_runtime

from turnframe.core import TurnInput
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.providers.bounds import DEFAULT_BOUNDS, AnswerUnreadable, parse_bounded
from turnframe.providers.redact import encoded_pattern
from turnframe.tasks import Task, read_answer
from turnframe.testing.hostile import ENCODINGS, HostileProvider, HostileVendor, hostile_text
from turnframe.understand import ModelUnderstanding

SHAPES = ("deep", "wide", "huge_string", "long_field")
LONGEST_VERDICT = 5 * DEFAULT_BOUNDS.max_problem + 20


@pytest.mark.parametrize("task", ["segment", "route", "extract", "verify"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("repaired", [True, False])
def test_a_parser_breaking_answer_gets_one_repair_round_then_a_notice(
    task: str, shape: str, repaired: bool
) -> None:
    async def main() -> None:
        served: dict[str, int] = {}
        rng = random.Random(3)

        def answer(request: ModelRequest) -> Any:
            data = json.loads(request.messages[1].content)
            n = served.get(request.task, 0)
            served[request.task] = n + 1
            good = _good(request.task, data)
            if request.task == task and (n == 0 or not repaired):
                return hostile_text(shape, rng, valid=good)
            return good

        provider = ScriptedProvider(answer)
        runtime, store, refs = await travel_runtime(ModelUnderstanding(provider, effort="low"))
        result = await runtime.run_turn(
            ACTOR, "c1", TurnInput(text="Rename the Porto trip to Summer")
        )
        record = await store.load_replay("acme", result.turn_id)
        assert record is not None
        calls = [c for c in record["calls"] if c["task"] == task]
        assert [c["attempt"] for c in calls] == ["first", "repair"]
        assert calls[0]["verdict"].startswith("invalid: ")
        assert len(calls[0]["verdict"]) <= LONGEST_VERDICT, calls[0]["verdict"]
        # The repair prompt quotes the error briefly, and an oversized answer goes back cut.
        repair = next(r for r in provider.requests if len(r.messages) > 2 and r.task == task)
        assert len(repair.messages[-1].content) <= LONGEST_VERDICT + 200
        assert len(repair.messages[-2].content) <= DEFAULT_BOUNDS.max_chars
        if repaired:
            assert calls[1]["verdict"] == "ok"
            assert result.commands == (("trip.rename", refs["T3"]),)
        else:
            # A megabyte answer is also ~250,000 tokens: the second one trips the budget.
            tripped = shape == "huge_string" and calls[1]["verdict"] == "error: BudgetExceeded"
            assert calls[1]["verdict"].startswith("invalid: ") or tripped
            assert result.commands == ()
            notices = [b for b in result.blocks if b.kind == "notice"]
            assert notices
            assert all(len(b.text) < 400 for b in notices)

    anyio.run(main)


TASK = Task(
    name="t",
    instructions="x",
    prompt_id="t@1",
    data={},
    schema={
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 4},
            "name": {"type": "string", "maxLength": 20},
        },
        "required": ["items", "name"],
        "additionalProperties": False,
    },
)


def test_size_is_refused_before_parsing_and_depth_before_recursing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_parse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the parser saw an answer the bounds refuse")

    monkeypatch.setattr(json, "loads", no_parse)
    rng = random.Random(0)
    for shape, words in (("wide", "characters long"), ("huge_string", "characters long")):
        answer, error = read_answer(TASK, hostile_text(shape, rng))
        assert answer is None and error is not None and words in error and len(error) < 120
    for depth in (33, 5_000, 30_000):
        answer, error = read_answer(TASK, "[" * depth + "]" * depth)
        assert answer is None and error is not None and "levels deep" in error


def test_a_depth_inside_strings_is_not_nesting() -> None:
    text = json.dumps({"items": ["a"], "name": "[[[[" * 50})
    assert parse_bounded(text)["items"] == ["a"]


@pytest.mark.parametrize("text", ["NaN", '{"items": [Infinity]}', "1" * 5000, "[1,", '{"a" 1}'])
def test_non_json_is_one_short_line(text: str) -> None:
    with pytest.raises(AnswerUnreadable) as caught:
        parse_bounded(text)
    assert "not valid JSON" in str(caught.value) and len(str(caught.value)) < 200


def test_validation_errors_do_not_quote_the_answer() -> None:
    long = "Z" * 50_000
    text = json.dumps({"items": ["c"] * 1000, "name": long, long[:5000]: 1})
    answer, error = read_answer(TASK, text)
    assert error is not None
    assert len(error) <= LONGEST_VERDICT
    assert "Z" * 41 not in error and "'c', 'c'" not in error
    assert "1000 items; at most 4" in error


def test_hostile_shapes_over_many_turns_end_every_turn() -> None:
    async def main() -> tuple[int, list[str]]:
        provider = HostileProvider(11, shapes=0.3)
        runtime, _, _ = await travel_runtime(ModelUnderstanding(provider, effort="low"))
        for n in range(40):
            await runtime.run_turn(
                ACTOR, f"c{n}", TurnInput(text="Rename the Porto trip to Summer")
            )
        return provider.calls, provider.shaped

    calls, shaped = anyio.run(main)
    assert set(shaped) == {"deep", "wide", "huge_string", "long_field", "escaped_key"}
    assert calls > 40


# ----------------------------------------------------- a key in any answer of a turn
KEYS = ("sk-proj-PLANTED0123456789abcdefXYZ", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTED")


def _leaks(texts: list[str]) -> list[str]:
    patterns = [encoded_pattern(k) for k in KEYS]
    return [
        t[:200]
        for t in texts
        for shown in [t + json.dumps(t)]
        if any(k in shown for k in KEYS) or any(p.search(shown) for p in patterns)
    ]


@settings(max_examples=24, deadline=None, derandomize=True)
@given(
    key=st.sampled_from(KEYS),
    encoding=st.sampled_from(ENCODINGS),
    task=st.sampled_from(["segment", "route", "locate", "extract", "verify"]),
    seed=st.integers(0, 1000),
)
def test_a_key_in_any_answer_of_a_turn_reaches_no_record_and_no_inspect(
    key: str, encoding: str, task: str, seed: int
) -> None:
    from turnframe.cli.chat import _inspect, render

    rng = random.Random(seed)
    served: dict[str, int] = {}

    def answer(request: ModelRequest) -> str:
        data = json.loads(request.messages[1].content)
        good = _good(request.task, data)
        served[request.task] = served.get(request.task, 0) + 1
        if request.task == task and served[task] == 1:
            return hostile_text("escaped_key", rng, valid=good, key=key, encoding=encoding)
        return json.dumps(good)

    async def go() -> list[str]:
        vendor = HostileVendor(answer, secrets=KEYS)
        runtime, store, _ = await travel_runtime(ModelUnderstanding(vendor, effort="low"))
        result = await runtime.run_turn(
            ACTOR, "c1", TurnInput(text="Rename the Porto trip to Summer")
        )
        record = await store.load_replay("acme", result.turn_id) or {}
        assert record.get("calls")
        return [
            json.dumps(record, ensure_ascii=False, default=str),
            json.dumps(_inspect(record, result), ensure_ascii=False, default=str),
            *render(result.blocks),
            *(m.content for r in vendor.requests for m in r.messages),
        ]

    assert _leaks(anyio.run(go)) == []
