"""A domain's glossary reaches the tasks that need it, through the brief (docs/adr/0020).

The glossary comes from the domain's configuration (a workflow's ``glossary(locale)``
hook, beside its operation summaries and argument labels); the runtime puts the entries
of the workflows on offer into the brief, in the turn's language; route, extract and
verify read it (``turnframe.understand.glossary``), and the prompts stay domain-free
(``test_prompts_domain_free.py``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from test_second_readings import NONE, _candidate, _ok, _unit
from understand_kit import ACTOR, travel_runtime

from turnframe.core import GlossaryEntry, RegistryError, TurnInput, WorkflowRegistry
from turnframe.core.acts import Understanding
from turnframe.eval.dataset import load_set
from turnframe.eval.oracle import OracleReading, oracle_provider
from turnframe.providers import ModelRequest, ModelResponse, Provider, ScriptedProvider
from turnframe.samples.travel import travel_application
from turnframe.samples.travel.trip import TripWorkflow
from turnframe.testing.scenario.model import ScenarioModel
from turnframe.testing.scenario.runner import run_scenario
from turnframe.understand import (
    Brief,
    ModelUnderstanding,
    ScriptedUnderstanding,
    UnderstandingResult,
)
from turnframe.understand.effort import Merge
from turnframe.understand.glossary import GLOSSARY_TASKS


class _Glossed(TripWorkflow):
    def __init__(self, entries: Any) -> None:
        self.entries = entries

    def glossary(self, locale: str) -> Any:
        del locale
        return self.entries


def test_every_travel_workflow_has_a_glossary_in_each_of_its_locales() -> None:
    registry = travel_application().registry
    for name in registry.names():
        for locale in ("en", "pt-PT"):
            entries = registry.workflow(name).glossary(locale)
            assert entries and all(e.workflow == name for e in entries), (name, locale)
    assert registry.glossary("en") != registry.glossary("pt-PT")


@pytest.mark.parametrize(
    "bad",
    [{"": "nothing"}, {"term": ""}, {"term": 3}, ["term"], "term", {"t": "x" * 401}],
)
def test_a_malformed_glossary_fails_registration(bad: Any) -> None:
    with pytest.raises(RegistryError, match="glossary"):
        WorkflowRegistry([_Glossed(bad)])


def test_glossary_entries_may_be_typed_and_keep_their_workflow() -> None:
    entry = GlossaryEntry(term="cover", meaning="insurance", workflow="anything")
    registry = WorkflowRegistry([_Glossed([entry])])
    assert registry.glossary("en") == (
        GlossaryEntry(term="cover", meaning="insurance", workflow="trip"),
    )
    assert registry.glossary("en", ["traveler"]) == ()


def _brief(locale: str) -> Brief:
    seen: list[Brief] = []

    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        return Understanding()

    async def go() -> None:
        runtime, _, _ = await travel_runtime(ScriptedUnderstanding([read]))
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="hello", locale=locale))

    anyio.run(go)
    return seen[0]


@pytest.mark.parametrize("locale", ["en", "pt-PT"])
def test_the_brief_carries_the_glossary_of_the_workflows_on_offer_in_the_turns_language(
    locale: str,
) -> None:
    brief = _brief(locale)
    registry = travel_application().registry
    offered = {op.workflow for op in brief.operations}
    assert brief.glossary == registry.glossary(locale, offered)
    assert brief.glossary


def _requests(text: str) -> Sequence[tuple[str, Any]]:
    requests: list[tuple[str, Any]] = []
    answers: dict[str, Any] = {
        "segment": lambda d: {"units": [_unit("u1", "request", 0, 5)]},
        "route": lambda d: {
            "routes": [{"unit": u["id"], "operations": ["trip.rename"], **NONE} for u in d["units"]]
        },
        "locate": lambda d: {"handles": [_candidate(d, "Porto")], "find": None},
        "extract": lambda d: {
            "values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]
        },
        "verify": lambda d: _ok(None, d),  # type: ignore[arg-type]
    }

    def answer(request: ModelRequest) -> Any:
        data = json.loads(request.messages[1].content)
        requests.append((request.task, data))
        return answers[request.task](data)

    async def go() -> None:
        runtime, _, _ = await travel_runtime(
            ModelUnderstanding(ScriptedProvider(answer), effort="low", merge=Merge.NONE)
        )
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=text))
        assert result.results["a1"].status.value == "committed"

    anyio.run(go)
    return requests


def test_route_extract_and_verify_read_the_glossary_and_no_other_task_does() -> None:
    requests = _requests("Rename the Porto trip to Summer")
    called = {task for task, _ in requests}
    assert {"route", "extract", "verify"} <= called, called
    trip_terms = {e.term for e in travel_application().registry.workflow("trip").glossary("en")}
    for task, data in requests:
        if task in GLOSSARY_TASKS:
            shown = {g["term"] for g in data["glossary"]}
            assert trip_terms <= shown, (task, shown)
            assert all(set(g) == {"term", "means"} for g in data["glossary"])
        else:
            assert "glossary" not in data, task


EVAL_SET = Path(__file__).resolve().parents[2] / "eval" / "travel"


class _Recording(Provider):
    """Wraps a provider; keeps each request's task name and input data."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner
        self.profile = inner.profile
        self.seen: list[tuple[str, Any]] = []

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.seen.append((request.task, json.loads(request.messages[1].content)))
        return await self.inner.complete(request)


@pytest.mark.parametrize(("effort", "merged"), [("low", "read"), ("medium", "segment_route")])
def test_the_merged_read_of_each_effort_reads_the_glossary(effort: str, merged: str) -> None:
    """The merged reads do route's (and at low, extract's) work, so they see its glossary."""
    (_file, data), *_ = load_set(EVAL_SET)
    case = next(c for c in data.cases if not c.before and "trip" in c.text.lower())
    reading = OracleReading(case)
    seen: list[_Recording] = []

    async def reader(run: Any, turn: Any, brief: Any) -> UnderstandingResult:
        provider = _Recording(
            oracle_provider(
                reading,
                lambda key: str(run.with_handles(brief, key)),
                lambda ref: str(run.with_handles(brief, f"card:{ref}")),
            )
        )
        seen.append(provider)
        return await ModelUnderstanding(provider, effort=effort).understand(brief)

    scenario = ScenarioModel.model_validate(
        {
            "name": case.id,
            "sample": data.sample,
            "today": data.today,
            "actor": data.actor,
            "records": data.records,
            "turns": [{"text": case.text, "understanding": "model", "effort": effort}],
        }
    )
    anyio.run(lambda: run_scenario(scenario, case.id, model_reader=reader))
    requests = [(task, d) for p in seen for task, d in p.seen]
    assert merged in {task for task, _ in requests}, requests
    trip_terms = {e.term for e in travel_application().registry.workflow("trip").glossary("en")}
    for task, d in requests:
        if task == merged:
            assert trip_terms <= {g["term"] for g in d["glossary"]}, task
