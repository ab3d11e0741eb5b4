"""High effort's cross-check: a finding sends one step of one act back; the verifier decides."""

from __future__ import annotations

import json
from typing import Any

import anyio
from understand_kit import ACTOR, travel_runtime

from turnframe.core import TurnInput
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.understand import Merge, ModelUnderstanding

TEXT = "Rename the Porto trip to Summer Break"


def _provider(second_verdict: str) -> ScriptedProvider:
    def answer(request: ModelRequest) -> Any:
        data = json.loads(request.messages[1].content)
        match request.task:
            case "segment":
                unit = {"id": "u1", "kind": "request", "from": 0, "to": 6}
                return {"units": [{**unit, "hypothetical": False, "continues": None}]}
            case "route":
                route = {"unit": "u1", "operations": ["trip.rename"], "topic": None}
                extra = {"constraint": None, "card": None, "corrects": None, "cancels": None}
                return {"routes": [{**route, **extra}]}
            case "locate":
                porto = next(c for c in data["data"]["candidates"] if "Porto" in c["label"])
                return {"handles": [porto["handle"]], "find": None}
            case "extract":
                if "read_again" in data:
                    return {
                        "values": [{"argument": "name", "from": 5, "to": 6, "copy": "Summer Break"}]
                    }
                return {"values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]}
            case "cross_check":
                note = "the name takes too little of the words"
                return {"findings": [{"act": "a1", "step": "extract", "note": note}]}
            case "verify":
                values = data["act"]["values"]
                verdict = second_verdict if values["name"]["value"] == "Summer Break" else "ok"
                findings = (
                    []
                    if verdict == "ok"
                    else [{"problem": "not_requested", "argument": None, "note": "no"}]
                )
                return {"verdict": verdict, "grounding": "user", "findings": findings}
        raise AssertionError(request.task)

    return ScriptedProvider(answer)


async def _run(second_verdict: str) -> tuple[Any, ScriptedProvider, Any]:
    provider = _provider(second_verdict)
    runtime, store, refs = await travel_runtime(ModelUnderstanding(provider, effort="high"))
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT))
    row = await store.load_case(refs["T3"])
    return result, provider, row


def test_a_cross_check_finding_reads_the_step_again_and_the_verifier_keeps_the_new_reading() -> (
    None
):
    result, provider, row = anyio.run(_run, "ok")
    tasks = [r.task for r in provider.requests]
    assert tasks.count("cross_check") == 1 and tasks.count("extract") == 2
    assert result.results["a1"].status.value == "committed"
    assert row.state["name"] == "Summer Break"


def test_the_check_alone_holds_nothing_when_the_verifier_rejects_the_new_reading() -> None:
    result, provider, row = anyio.run(_run, "fault")
    assert result.results["a1"].status.value == "committed"
    assert row.state["name"] == "Summer"
    assert not [b for b in result.blocks if b.kind == "notice"]


def test_steps_are_narrated_in_the_users_language_except_at_low_effort() -> None:
    from turnframe.core.turn import TurnEvent
    from turnframe.runtime import NarrationConfig

    async def run(effort: str, locale: str) -> list[Any]:
        provider = _provider("ok")
        runtime, _, _ = await travel_runtime(
            ModelUnderstanding(provider, effort=effort, merge=Merge.NONE)
        )
        runtime.narration = NarrationConfig(steps=True)
        seen: list[TurnEvent] = []
        runtime.subscribe(seen.append)
        await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT, locale=locale))
        return [e for e in seen if e.kind == "step"]

    high = anyio.run(run, "high", "pt-PT")
    assert high and all(e.text for e in high)
    assert high[0].text == "A ler a sua mensagem: 1 parte(s)."
    assert all("Porto" not in e.text and "Summer" not in e.text for e in high)
    low = anyio.run(run, "low", "en")
    assert low and not any(e.text for e in low)
