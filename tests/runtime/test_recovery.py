"""Crash recovery from the persisted turn phase, at every named store boundary.

See docs/architecture.md "Failures".
"""

from __future__ import annotations

from datetime import date

import anyio
import pytest

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionResponse,
    InteractionStatus,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnInterrupted
from turnframe.samples.travel import seed_order, seed_state, travel_application
from turnframe.store import BOUNDARIES, FaultInjectingStore, FaultPlan, InMemoryStore
from turnframe.understand import Brief, UnderstandingResult

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
RECORDS = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T2", "workflow": "trip", "name": "Porto", "start": "2026-06-12", "end": "2026-06-15"},
]


class _SameReading:
    """Understanding that gives the same proposal however often the turn is re-read."""

    def __init__(self, runtime_ref: list[Runtime], refs: dict[str, CaseRef]) -> None:
        self.runtime_ref = runtime_ref
        self.refs = refs
        self.calls = 0

    async def understand(self, brief: Brief) -> UnderstandingResult:
        self.calls += 1
        rt = self.runtime_ref[0]
        t1 = rt.handle_for(brief.turn_id, self.refs["T1"])
        t2 = rt.handle_for(brief.turn_id, self.refs["T2"])
        return UnderstandingResult(
            understanding=Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="trip.add_extra",
                        target=ProposedTarget(handles=(t1,)),
                        args={"kind": "insurance"},
                    ),
                    SemanticAct(
                        id="a2", operation="trip.cancel", target=ProposedTarget(handles=(t2,))
                    ),
                )
            )
        )


async def _scenario(boundary: str) -> None:
    plan = FaultPlan()
    store = FaultInjectingStore(InMemoryStore(), plan)
    refs: dict[str, CaseRef] = {}
    holder: list[Runtime] = []
    understander = _SameReading(holder, refs)
    runtime = Runtime(
        travel_application(),
        store,
        understander,
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
    )
    holder.append(runtime)
    for record in seed_order(RECORDS):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed("acme", workflow, state)

    plan.arm(boundary)
    turn_input = TurnInput(text="Add insurance to Lisbon and cancel Porto.")
    try:
        result = await runtime.run_turn(ACTOR, "c1", turn_input)
    except TurnInterrupted as exc:
        if await store.get_turn("acme", exc.turn_id) is None:
            result = await runtime.run_turn(ACTOR, "c1", turn_input, turn_id=exc.turn_id)
        else:
            result = await runtime.recover(ACTOR, exc.turn_id)

    # The insurance was added exactly once, whatever boundary failed.
    row = await store.load_case(refs["T1"])
    assert row is not None
    assert [e["kind"] for e in row.state["extras"]] == ["insurance"], boundary  # type: ignore[index,union-attr]
    events = [e for e in await store.case_events(refs["T1"]) if e.operation == "trip.add_extra"]
    assert len(events) == 1, boundary
    # The cancellation waits on exactly one open confirmation card (or none if it could not
    # be persisted: then no block mentions it, I6).
    cards = [c for c in await store.open_interactions("acme", "c1") if c.spec.case == refs["T2"]]
    shown = [b for b in result.blocks if b.kind == "interaction"]
    assert len(cards) <= 1 and len(shown) == len(cards), boundary
    assert all(c.status is InteractionStatus.OPEN for c in cards)
    assert result.results["a1"].status is ResultStatus.COMMITTED
    assert ("trip.add_extra", refs["T1"]) in result.commands, boundary
    assert result.results["a2"].status is ResultStatus.AWAITING_CONFIRMATION
    # The reply was persisted exactly as returned.
    assert await store.load_reply("acme", result.turn_id) == result.blocks
    # Porto is untouched: a confirmation card never executes by itself.
    porto = await store.load_case(refs["T2"])
    assert porto is not None and porto.state["status"] != "cancelled"


@pytest.mark.parametrize("boundary", [b for b in BOUNDARIES if b != "put_conversation_state"])
def test_a_turn_recovers_from_a_failure_at_every_boundary(boundary: str) -> None:
    anyio.run(_scenario, boundary)


async def _decline_scenario() -> None:
    plan = FaultPlan()
    store = FaultInjectingStore(InMemoryStore(), plan)
    refs: dict[str, CaseRef] = {}
    holder: list[Runtime] = []
    runtime = Runtime(
        travel_application(),
        store,
        _SameReading(holder, refs),
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
    )
    holder.append(runtime)
    for record in seed_order(RECORDS):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed("acme", workflow, state)
    first = await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance and cancel Porto."))
    (card,) = first.interactions_created
    plan.arm("close_interaction")
    click = TurnInput(
        interaction_response=InteractionResponse(
            interaction_id=card.id, option_id="decline", expected_revision=card.spec.bound_revision
        )
    )
    with pytest.raises(TurnInterrupted) as caught:
        await runtime.run_turn(ACTOR, "c1", click)
    assert plan.fired  # the fault really fired at close_interaction
    result = await runtime.recover(ACTOR, caught.value.turn_id)
    assert result.results["a2"].status is ResultStatus.NO_CHANGE
    stored = await store.get_interaction("acme", "c1", card.id)
    assert stored is not None and stored.status is InteractionStatus.DECLINED
    porto = await store.load_case(refs["T2"])
    assert porto is not None and porto.state["status"] != "cancelled"


def test_a_decline_recovers_from_a_failure_at_close_interaction() -> None:
    anyio.run(_decline_scenario)
