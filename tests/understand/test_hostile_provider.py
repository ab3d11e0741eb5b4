"""Hostile providers never yield an unsafe effect (issue 3 "Done when").

* Arbitrary schema-valid answers for many turns: zero commands without a server origin,
  zero compilations of a non-Exact target, zero receipts without committed events.
  ``TURNFRAME_HOSTILE_TURNS`` sets the turn count (the suite runs 600; the closing note
  of issue 3 reports a 10,000-turn run).
* Malformed JSON, unknown fields, unofferable operations and unknown handles: exactly
  one repair round each, and never a command.
"""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import pytest
from understand_kit import ACTOR, travel_runtime

import turnframe.runtime.steps.reduction as reduction_step
from turnframe.core import Exact, TurnInput
from turnframe.core.commands import ConfirmedInteraction, DirectUserAct
from turnframe.providers import ModelRequest, ScriptedProvider
from turnframe.runtime.plan import Plan, ReductionInput
from turnframe.runtime.policy import origin_satisfies
from turnframe.testing.hostile import HostileProvider
from turnframe.understand import ModelUnderstanding

TEXTS = [
    "Add insurance to the Lisbon trip and rename Porto to Summer, what's the allowance?",
    "Submit the manifest now. Actually, don't submit anything yet.",
    "yes",
    "Put Ana Silva on the June trip and book the Hotel Avenida for 3 nights",
    "Cancel the Porto trip, and who pays for E1? The company pays.",
    "Change the dates of the Lisbon trip to June 3 to June 9, no wait, June 10",
    "What would happen if I cancelled the trip?",
]


def _checked_reduce(violations: list[str]) -> Any:
    original = reduction_step.reduce_turn

    def reduce(inp: ReductionInput, registry: Any) -> Plan:
        plan = original(inp, registry)
        resolutions = {a.act.id: a.resolution for a in inp.acts}
        # A card answered in words resumes the card's own pending acts, on the cases the
        # server stored for the card (its pending case or a selected option's case).
        on_cards: dict[str, set[Any]] = {}
        for card in inp.cards_on_screen:
            cases = {o.case for o in card.spec.options if o.case is not None}
            for pending in card.spec.pending:
                on_cards.setdefault(pending.act.id, set()).update(cases | {pending.case})
        for batch in plan.batches:
            for envelope in batch.envelopes:
                origin = envelope.origin
                if isinstance(origin, ConfirmedInteraction) and inp.click is None:
                    violations.append(f"confirmation origin without a click: {envelope}")
                if not isinstance(origin, DirectUserAct | ConfirmedInteraction):
                    violations.append(f"unexpected origin {origin!r}")
                if not origin_satisfies(envelope.policy, origin):
                    violations.append(f"origin does not satisfy policy: {envelope}")
                resolution = resolutions.get(envelope.act_id)
                exact = isinstance(resolution, Exact) and resolution.case == batch.case
                from_card = batch.case in on_cards.get(envelope.act_id, set())
                # An act carried while it waited for a record (ADR 0007) resumes on the target
                # its own turn resolved exactly.
                from_waiting = any(
                    w.item_id == envelope.act_id and w.pending.case == batch.case
                    for w in inp.waiting
                )
                if inp.click is None and not (exact or from_card or from_waiting):
                    violations.append(f"compiled from a non-Exact target: {resolution!r}")
        return plan

    return reduce


async def _hostile_turns(turns: int, seed: int) -> tuple[int, int, list[str]]:
    violations: list[str] = []
    provider = HostileProvider(seed)
    runtime, store, _ = await travel_runtime(ModelUnderstanding(provider, effort="low"))
    commands = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reduction_step, "reduce_turn", _checked_reduce(violations))
        for n in range(turns):
            conversation = f"c{n // 25}"
            result = await runtime.run_turn(
                ACTOR, conversation, TurnInput(text=TEXTS[n % len(TEXTS)])
            )
            commands += len(result.commands)
            event_ids = {e.id for e in result.events}
            for block in result.blocks:
                for claim in block.claims:
                    if not claim.event_ids or not set(claim.event_ids) <= event_ids:
                        violations.append(f"receipt without this turn's events: {block}")
            if result.refused_blocks:
                violations.append(f"claim guard refused {result.refused_blocks}")
    return provider.calls, commands, violations


def test_hostile_schema_valid_answers_never_yield_an_unsafe_effect() -> None:
    turns = int(os.environ.get("TURNFRAME_HOSTILE_TURNS", "600"))
    calls, commands, violations = anyio.run(_hostile_turns, turns, 7)
    assert violations == []
    assert calls > turns  # the answers reached past segmentation
    print(f"{turns} hostile turns, {calls} calls, {commands} commands, 0 violations")


# ------------------------------------------------------------------ one repair round
def _good(task: str, data: dict[str, Any]) -> dict[str, Any]:
    if task == "segment":
        return {
            "units": [
                {
                    "id": "u1",
                    "kind": "request",
                    "from": 0,
                    "to": 5,
                    "hypothetical": False,
                    "continues": None,
                }
            ]
        }
    if task == "route":
        return {
            "routes": [
                {
                    "unit": "u1",
                    "operations": ["trip.rename"],
                    "topic": None,
                    "constraint": None,
                    "card": None,
                    "corrects": None,
                    "cancels": None,
                }
            ]
        }
    if task == "locate":
        porto = next(c for c in data["data"]["candidates"] if "Porto" in c["label"])
        return {"handles": [porto["handle"]], "find": None}
    if task == "extract":
        return {"values": [{"argument": "name", "from": 5, "to": 5, "copy": "Summer"}]}
    return {"verdict": "ok", "grounding": "user", "findings": []}


def _bad(kind: str, task: str, data: dict[str, Any]) -> Any:
    good = _good(task, data)
    if kind == "malformed":
        return '{"units": [ {"id": "u1", '
    if kind == "unknown_field":
        return {**good, "confidence": 0.99}
    if kind == "unofferable_operation":
        return {"routes": [{**good["routes"][0], "operations": ["trip.teleport"]}]}
    if kind == "unknown_handle":
        return {"handles": ["h0000000000"], "find": None}
    raise AssertionError(kind)


CASES = [
    ("malformed", "segment"),
    ("unknown_field", "segment"),
    ("unknown_field", "route"),
    ("unknown_field", "extract"),
    ("unknown_field", "verify"),
    ("unofferable_operation", "route"),
    ("unknown_handle", "locate"),
    ("malformed", "extract"),
]


@pytest.mark.parametrize(("kind", "task"), CASES)
@pytest.mark.parametrize("repaired", [True, False])
def test_off_contract_answer_gets_exactly_one_repair_round(
    kind: str, task: str, repaired: bool
) -> None:
    async def main() -> None:
        served: dict[str, int] = {}

        def answer(request: ModelRequest) -> Any:
            data = json.loads(request.messages[1].content)
            n = served.get(request.task, 0)
            served[request.task] = n + 1
            if request.task == task and (n == 0 or not repaired):
                return _bad(kind, request.task, data)
            return _good(request.task, data)

        runtime, store, refs = await travel_runtime(
            ModelUnderstanding(ScriptedProvider(answer), effort="low")
        )
        result = await runtime.run_turn(
            ACTOR, "c1", TurnInput(text="Rename the Porto trip to Summer")
        )
        record = await store.load_replay("acme", result.turn_id)
        assert record is not None
        calls = [c for c in record["calls"] if c["task"] == task]
        assert [c["attempt"] for c in calls] == ["first", "repair"]
        assert calls[0]["verdict"].startswith("invalid: ")
        if repaired:
            assert calls[1]["verdict"] == "ok"
            assert result.commands == (("trip.rename", refs["T3"]),)
        else:
            assert calls[1]["verdict"].startswith("invalid: ")
            assert result.commands == ()
            assert any(b.kind == "notice" for b in result.blocks)

    anyio.run(main)


def test_a_dropped_or_refused_call_is_sent_again_in_place() -> None:
    from turnframe.providers import CallDropped, ModelResponse, StopReason

    async def main() -> None:
        served: dict[str, int] = {}

        def answer(request: ModelRequest) -> Any:
            data = json.loads(request.messages[1].content)
            n = served.get(request.task, 0)
            served[request.task] = n + 1
            if request.task == "route" and n == 0:
                return CallDropped("connection reset")
            if request.task == "extract" and n == 0:
                return ModelResponse(text="", stop=StopReason.REFUSAL)
            return _good(request.task, data)

        runtime, store, refs = await travel_runtime(
            ModelUnderstanding(ScriptedProvider(answer), effort="low")
        )
        result = await runtime.run_turn(
            ACTOR, "c1", TurnInput(text="Rename the Porto trip to Summer")
        )
        record = await store.load_replay("acme", result.turn_id)
        assert record is not None
        verdicts = [(c["task"], c["verdict"]) for c in record["calls"]]
        assert ("route", "resend: CallDropped") in verdicts
        assert ("extract", "resend: refusal") in verdicts
        assert result.commands == (("trip.rename", refs["T3"]),)

    anyio.run(main)
