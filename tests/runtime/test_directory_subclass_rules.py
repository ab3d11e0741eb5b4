"""A directory that narrows what an actor may see is asked, even over the turn's own store.

Only the exact default ``StoredCaseDirectory`` lets a turn answer ``authorize`` and
``find`` from the rows it read and the store's word index
(``turnframe.runtime.records.builtin_directory``); a subclass with rules of its own is
asked for every record the brief shows and every target it resolves
(docs/adr/0020-what-a-brief-shows.md).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, CaseRef, TurnInput
from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.executor import StoredCaseDirectory
from turnframe.samples.travel import complete_records, seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
RECORDS: list[dict[str, Any]] = [
    {"key": "T1", "workflow": "trip", "name": "Lisbon", "start": "2026-05-12", "end": "2026-05-15"},
    {"key": "T3", "workflow": "trip", "name": "Porto", "start": "2026-07-01", "end": "2026-07-04"},
]


class _NoPorto(StoredCaseDirectory):
    """The default directory, except that the actor may not see the Porto trip."""

    async def authorize(self, actor: Actor, case: CaseRef) -> bool:
        return case.case_id != "t3" and await super().authorize(actor, case)


async def _turn(in_view: list[str] | None) -> tuple[Brief, Any, Runtime, dict[str, CaseRef]]:
    store = InMemoryStore()
    app = travel_application()
    script = ScriptedUnderstanding()
    runtime = Runtime(
        app,
        store,
        script,
        clock=FixedClock(TODAY),
        ids=SequentialIds(),
        directory=_NoPorto(app.registry, store),
    )
    refs: dict[str, CaseRef] = {}
    for record in seed_order(complete_records(RECORDS)):
        workflow, state = seed_state(record, refs)
        refs[str(record["key"])] = await runtime.seed(
            "acme", workflow, state, case_id=str(record["key"]).lower()
        )
    seen: list[Brief] = []

    def read(brief: Brief) -> Understanding:
        seen.append(brief)
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.rename",
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, refs["T3"]),)),
                    args={"name": "Autumn"},
                    evidence={"name": "Autumn"},
                ),
            )
        )

    script.push(read)
    view = None if in_view is None else [refs[k] for k in in_view]
    result = await runtime.run_turn(
        ACTOR, "c1", TurnInput(text="rename the Porto trip to Autumn"), in_view=view
    )
    return seen[0], result, runtime, refs


@pytest.mark.parametrize("in_view", [None, ["T1", "T3"]], ids=["default view", "on screen"])
def test_a_record_the_directory_hides_is_neither_briefed_nor_written(
    in_view: list[str] | None,
) -> None:
    brief, result, runtime, refs = anyio.run(_turn, in_view)
    porto = runtime.handle_for(brief.turn_id, refs["T3"])
    lisbon = runtime.handle_for(brief.turn_id, refs["T1"])
    assert lisbon in brief.handles and porto not in brief.handles
    assert result.results["a1"].status.value != "committed"
    assert result.events == ()
