"""Narration and evals read typed results; votes are independent reads (docs/adr/0018).

* An eval run against a provider whose every answer is invalid scores 0 produced units
  and F1 = 0 (it once parsed a validation error's text as segmented units).
* A step no reading passed is narrated as unreadable, never by its error text; the
  segment count comes from the units read.
* Understanding is read at temperature 0; each vote of a voted task is a different,
  recorded request (seed, temperature, rotation), and the eval reports how often
  votes disagree.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from understand_kit import ACTOR, travel_runtime

from turnframe.cli import main
from turnframe.core import TurnInput
from turnframe.core.turn import TurnStep
from turnframe.eval import run_eval
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.providers.base import SCHEMA_KEYWORDS
from turnframe.providers.openai import llama_server_profile, openai_profile
from turnframe.runtime import NarrationConfig
from turnframe.runtime.copy import narrate, say
from turnframe.understand import Merge, ModelUnderstanding

EVAL_SET = Path(__file__).resolve().parents[2] / "eval" / "travel"
TASKS = ("segment", "coverage", "route", "locate", "extract", "verify", "cross_check")

# Off contract for every task; segment's error text quotes "u1:request, u2:question".
INVALID: dict[str, Any] = {
    **{task: {"nope": 1} for task in TASKS},
    "segment": {"units": [{"id": "u1:request, u2:question, u3:constraint", "kind": "request"}]},
}


def test_an_eval_against_an_all_invalid_provider_scores_no_unit_and_f1_zero(
    tmp_path: Path,
) -> None:
    answers = tmp_path / "invalid.yaml"
    answers.write_text(yaml.safe_dump(INVALID), encoding="utf-8")
    report = anyio.run(run_eval, EVAL_SET / "01_single_acts.yaml", f"scripted:{answers}", "low")
    assert report.cases > 20
    assert report.scores["segment"].produced == 0
    assert report.scores["acts"].produced == 0
    for task, score in report.scores.items():
        if score.expected:
            assert score.f1 == 0.0, task
    assert report.perfect == 0


async def _steps(provider: ScriptedProvider, text: str) -> list[TurnStep]:
    runtime, _, _ = await travel_runtime(
        ModelUnderstanding(provider, effort="medium", merge=Merge.NONE)
    )
    runtime.narration = NarrationConfig(steps=True)
    return [
        e
        async for e in runtime.stream_turn(ACTOR, "c1", TurnInput(text=text))
        if isinstance(e, TurnStep)
    ]


def test_an_unreadable_step_is_narrated_as_unreadable_never_by_its_error_text() -> None:
    provider = ScriptedProvider(dict(INVALID))
    steps = anyio.run(_steps, provider, "Rename the Porto trip to Summer")
    segment = [s for s in steps if s.name == "segment"]
    assert segment and all(s.detail == "unreadable" for s in segment)
    assert segment[-1].text == say("step.unreadable", "en")
    for step in steps:
        assert "at $" not in step.detail and "u1:request" not in step.detail + step.text


def test_the_segment_narration_counts_the_units_read() -> None:
    def answer(request: ModelRequest) -> Any:
        if request.task == "segment":
            units = [(0, 1, "request"), (3, 4, "question")]
            return {
                "units": [
                    {
                        "id": f"u{n}",
                        "kind": k,
                        "from": a,
                        "to": b,
                        "hypothetical": False,
                        "continues": None,
                    }
                    for n, (a, b, k) in enumerate(units, start=1)
                ]
            }
        return {"nope": 1}

    steps = anyio.run(_steps, ScriptedProvider(answer), "Rename it, and what's up?")
    segment = next(s for s in steps if s.name == "segment" and s.detail != "unreadable")
    assert segment.text == "Reading your message: 2 part(s)."
    # Detail text is never parsed for the count.
    assert narrate("segment", "a, b, c, d", "en") == say("step.other", "en")
    assert narrate("segment", "x", "en", 3) == "Reading your message: 3 part(s)."
    assert narrate("route", "unreadable", "pt-PT") == say("step.unreadable", "pt-PT")


async def _one_turn(provider: ScriptedProvider, effort: str) -> Any:
    runtime, store, _ = await travel_runtime(
        ModelUnderstanding(provider, effort=effort, merge=Merge.NONE)
    )
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Rename the Porto trip to Summer"))
    return await store.load_replay("acme", result.turn_id)


def _reader(request: ModelRequest) -> Any:
    data = json.loads(request.messages[1].content)
    none = {"topic": None, "constraint": None, "card": None, "corrects": None, "cancels": None}
    match request.task:
        case "segment":
            # A sampling vendor: the seeded votes read the message differently.
            end = 5 if request.seed in (None, 2) else 4
            unit = {"id": "u1", "kind": "request", "from": 0, "to": end}
            return {"units": [{**unit, "hypothetical": False, "continues": None}]}
        case "coverage":
            return {"missed": []}
        case "route":
            return {"routes": [{"unit": "u1", "operations": ["trip.rename"], **none}]}
        case "locate":
            porto = next(c for c in data["data"]["candidates"] if "Porto" in c["label"])
            return {"handles": [porto["handle"]], "find": None}
        case "extract":
            return {"values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]}
        case "verify":
            return {"verdict": "ok", "grounding": "user", "findings": []}
    return {"nope": 1}


def test_understanding_is_read_at_temperature_0() -> None:
    provider = ScriptedProvider(_reader)
    anyio.run(_one_turn, provider, "low")
    understanding = [r for r in provider.requests if r.task in TASKS]
    assert understanding and {r.temperature for r in understanding} == {0.0}
    assert {r.seed for r in understanding} == {None}


def test_each_vote_is_a_different_recorded_request_and_splits_are_counted() -> None:
    provider = ScriptedProvider(_reader)
    record = anyio.run(_one_turn, provider, "medium")
    votes = [r for r in provider.requests if r.task == "segment"]
    assert len(votes) >= 3
    assert len({r.fingerprint() for r in votes[:3]}) == 3  # no vote is paid twice
    sampled = [c["sampling"] for c in record["calls"] if c["task"] == "segment"][:3]
    assert [s["vote"] for s in sampled] == [0, 1, 2]
    assert [s["temperature"] for s in sampled] == [0.0, 0.7, 0.7]
    assert [s["seed"] for s in sampled] == [None, 1, 2]
    assert [s["rotation"] for s in sampled] == [0, 1, 2]
    rounds = record["reading"]["votes"]
    segment = next(r for r in rounds if r["task"] == "segment")
    assert segment["reads"] == 3 and segment["distinct"] == 2
    route = next(r for r in rounds if r["task"] == "route")
    assert route["distinct"] == 1


def test_eval_run_reports_the_vote_disagreement_rate(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "eval",
            "run",
            str(EVAL_SET / "01_single_acts.yaml"),
            "--model",
            "oracle",
            "--effort",
            "medium",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    votes = report["votes"]
    assert votes["rounds"] > 0 and votes["reads"] >= 3 * votes["rounds"] - votes["collapsed_reads"]
    assert votes["disagreement_rate"] == 0.0  # the oracle reads every vote the same way


def test_every_profile_says_which_task_schema_keywords_it_enforces() -> None:
    llama = llama_server_profile().keyword_enforcement()
    assert set(llama) == set(SCHEMA_KEYWORDS)
    assert llama["enum"] and llama["const"] and llama["additionalProperties"]
    assert not llama["minimum"] and not llama["maximum"] and not llama["uniqueItems"]
    strict = openai_profile("gpt-4.1-mini").keyword_enforcement()
    assert strict["minimum"] and not strict["maxLength"] and not strict["uniqueItems"]
    table = (Path(__file__).resolve().parents[2] / "docs" / "providers.md").read_text("utf-8")
    assert "## Keyword enforcement of the task schemas" in table
    assert "| openai-compatible (llama-server)" in table.split("## Keyword enforcement")[1]
