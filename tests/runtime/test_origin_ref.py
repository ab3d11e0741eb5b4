"""A UI origin reference removes ambiguity at the source, but never names a new case id."""

from __future__ import annotations

from datetime import date

import anyio

from turnframe.core import (
    Actor,
    CaseRef,
    ProposedTarget,
    ResultStatus,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

ACTOR = Actor(account="acme", user="u1")


async def _run() -> None:
    store = InMemoryStore()
    script = ScriptedUnderstanding()
    runtime = Runtime(
        travel_application(), store, script, clock=FixedClock(date(2026, 5, 1)), ids=SequentialIds()
    )
    workflow, state = seed_state({"key": "T1", "workflow": "trip", "name": "Lisbon"}, {})
    lisbon = await runtime.seed("acme", workflow, state)
    other = await runtime.seed("rival", workflow, state)

    def rename(name: str) -> Understanding:
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1", operation="trip.rename", target=ProposedTarget(), args={"name": name}
                ),
            )
        )

    # The record the UI already shows is the target.
    script.push(rename("Lisboa"))
    done = await runtime.run_turn(ACTOR, "c1", TurnInput(text="rename it", origin_ref=lisbon))
    assert done.results["a1"].status is ResultStatus.COMMITTED

    # Another account's record and a record nobody created are both unaddressable.
    for ref in (other, CaseRef("trip", "T9")):
        script.push(rename("Mine now"))
        refused = await runtime.run_turn(ACTOR, "c1", TurnInput(text="rename it", origin_ref=ref))
        assert refused.results["a1"].status is ResultStatus.NEEDS_CLARIFICATION
        assert refused.commands == ()
    script.push(
        Understanding(
            acts=(
                SemanticAct(
                    id="a1", operation="trip.start", target=ProposedTarget(), args={"name": "X"}
                ),
            )
        )
    )
    start = await runtime.run_turn(
        ACTOR, "c1", TurnInput(text="start", origin_ref=CaseRef("trip", "T9"))
    )
    assert start.commands == () and await store.load_case(CaseRef("trip", "T9")) is None


def test_origin_ref_targets_only_existing_cases_of_the_account() -> None:
    anyio.run(_run)
