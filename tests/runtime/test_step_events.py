"""Understanding's step events: built for a listener only, worded as before (docs/architecture.md).

The brief's ``on_step`` builds a :class:`~turnframe.core.turn.TurnStep` (and its narrated
words) only when some listener is subscribed at the moment of the step; a listener hears
exactly the event it heard before (narrated by ``narrate`` unless at ``low`` effort).
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import Actor
from turnframe.core.acts import Understanding
from turnframe.core.turn import Effort, TurnInput, TurnStep
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime.app import NarrationConfig
from turnframe.runtime.copy import narrate
from turnframe.runtime.steps import brief as brief_step
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

ACTOR = Actor(account="acme", user="ana")


def _runtime(script: ScriptedUnderstanding) -> Runtime:
    return Runtime(
        travel_application(),
        InMemoryStore(),
        script,
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
        narration=NarrationConfig(steps=True),
    )


def _stepping(brief: Any) -> Understanding:
    brief.on_step("segment", "2 units", 2)
    brief.on_step("route", "trip.rename", None)
    return Understanding(acts=())


def _count_steps(monkeypatch: pytest.MonkeyPatch) -> list[TurnStep]:
    built: list[TurnStep] = []

    def counted(**fields: Any) -> TurnStep:
        built.append(TurnStep(**fields))
        return built[-1]

    monkeypatch.setattr(brief_step, "TurnStep", counted)
    return built


@pytest.mark.parametrize("effort", [None, Effort.LOW])
def test_a_listener_hears_each_step_narrated_as_before(effort: Effort | None) -> None:
    """The events are ``TurnStep(turn_id, name, detail, narrate(...))``; ``""`` at low effort."""
    script = ScriptedUnderstanding([_stepping])
    runtime = _runtime(script)
    heard: list[Any] = []

    async def run() -> None:
        await runtime.run_turn(
            ACTOR, "c1", TurnInput(text="hello", effort=effort), on_event=heard.append
        )

    anyio.run(run)
    steps = [e for e in heard if isinstance(e, TurnStep)]
    turn_id = steps[0].turn_id
    prose = effort is not Effort.LOW
    assert steps == [
        TurnStep(
            turn_id=turn_id,
            name="segment",
            detail="2 units",
            text=narrate("segment", "2 units", "en", 2) if prose else "",
        ),
        TurnStep(
            turn_id=turn_id,
            name="route",
            detail="trip.rename",
            text=narrate("route", "trip.rename", "en", None) if prose else "",
        ),
    ]
    assert all(s.text for s in steps) is prose


def test_no_step_event_is_built_without_a_listener(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody subscribed: no ``TurnStep`` is constructed; a subscriber gets them built again."""
    built = _count_steps(monkeypatch)
    runtime = _runtime(ScriptedUnderstanding([_stepping, _stepping]))

    async def run() -> None:
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="hello"))
        assert built == []
        heard: list[Any] = []
        runtime.subscribe(heard.append)
        await runtime.run_turn(ACTOR, "c1", TurnInput(text="hello again"))
        assert len(built) == 2
        assert [e for e in heard if isinstance(e, TurnStep)] == built

    anyio.run(run)
