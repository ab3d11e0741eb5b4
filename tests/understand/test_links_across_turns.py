"""The model chain names a pending act of an earlier turn by the ref the brief offers (ADR 0012)."""

from __future__ import annotations

import json
from typing import Any

import anyio
from understand_kit import ACTOR, travel_runtime

from turnframe.core import InteractionStatus, ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.understand import Merge, ModelUnderstanding, ScriptedUnderstanding

TEXT = "Forget the hotel"


def _cancels_of(schema: Any, unit: str) -> Any:
    """Return the ``cancels`` schema of the route item for ``unit`` (one branch per unit)."""
    items = schema["properties"]["routes"]["items"]
    for branch in items.get("anyOf", [items]):
        props = branch["properties"]
        if props["unit"].get("const", unit) == unit:
            return props["cancels"]
    raise AssertionError(f"no route branch for {unit}")


def _provider(seen: dict[str, Any]) -> ScriptedProvider:
    def answer(request: ModelRequest) -> Any:
        data = json.loads(request.messages[1].content)
        match request.task:
            case "segment":
                unit = {"id": "u1", "kind": "cancellation", "from": 0, "to": 2}
                return {"units": [{**unit, "hypothetical": False, "continues": None}]}
            case "route":
                card = data["data"]["cards_on_screen"][0]
                seen["pending_acts"] = card["pending_acts"]
                seen["offered"] = _cancels_of(request.schema, "u1")
                ref = card["pending_acts"][0]["id"]
                route = {"unit": "u1", "operations": [], "topic": None, "constraint": None}
                return {"routes": [{**route, "card": None, "corrects": None, "cancels": ref}]}
        raise AssertionError(request.task)

    return ScriptedProvider(answer)


async def _run() -> tuple[Any, Any, dict[str, Any]]:
    scripted = ScriptedUnderstanding()
    runtime, store, refs = await travel_runtime(scripted)

    def book(brief: Any) -> Understanding:
        handle = runtime.handle_for(brief.turn_id, refs["T3"])
        act = SemanticAct(
            id="a1",
            operation="trip.book_hotel",
            target=ProposedTarget(handles=(handle,)),
            args={"hotel": "Hotel Avenida", "nights": "3"},
        )
        return Understanding(acts=(act,))

    scripted.push(book)
    first = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Book Hotel Avenida in Porto"))
    card = first.interactions_created[0]
    seen: dict[str, Any] = {}
    runtime.understander = ModelUnderstanding(_provider(seen), effort="low", merge=Merge.NONE)
    second = await runtime.run_turn(ACTOR, "c1", TurnInput(text=TEXT))
    stored = await store.get_interaction(ACTOR.account, "c1", card.id)
    return second, stored, seen


def test_a_cancellation_routed_to_an_earlier_cards_act_withdraws_the_card() -> None:
    second, stored, seen = anyio.run(_run)
    ref = f"{stored.id}:a1"
    assert seen["pending_acts"][0]["id"] == ref
    assert ref in json.dumps(seen["offered"])
    assert second.results[ref].status.value == "superseded"
    assert second.results[ref].code == "cancelled"
    assert stored.status is InteractionStatus.WITHDRAWN
    assert "As you asked, that change was not made." in " ".join(
        getattr(b, "text", "") or "" for b in second.blocks
    )
