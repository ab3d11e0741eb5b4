"""Step and phase events: built for a listener only, heard as before (docs/architecture.md).

The brief's ``on_step`` builds a :class:`~turnframe.core.turn.TurnStep` (and its narrated
words) only when some listener is subscribed at the moment of the step; a listener hears
exactly the event it heard before (narrated by ``narrate`` unless at ``low`` effort).
The :class:`~turnframe.core.turn.TurnPhaseChanged` events of the pipeline, the commit
step and the record step are built the same way: only for a listener, every phase
heard in the turn's order.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, CaseRef, ProposedTarget, SemanticAct
from turnframe.core.acts import Understanding
from turnframe.core.turn import (
    Effort,
    InteractionResponse,
    TurnInput,
    TurnPhase,
    TurnPhaseChanged,
    TurnStep,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.runtime import parts as runtime_parts
from turnframe.runtime.app import NarrationConfig
from turnframe.runtime.copy import narrate
from turnframe.runtime.steps import brief as brief_step
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
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


PHASES = [
    TurnPhase.RECEIVED,
    TurnPhase.UNDERSTOOD,
    TurnPhase.PLANNED,
    TurnPhase.COMMITTING,
    TurnPhase.COMMITTED,
    TurnPhase.REPLIED,
]
"""The phases a committing turn (text or click) reaches, in order (docs/architecture.md)."""


def _seeded() -> tuple[Runtime, dict[str, CaseRef]]:
    runtime = _runtime(ScriptedUnderstanding())
    refs: dict[str, CaseRef] = {}

    async def seed() -> None:
        for key, case, state in seed_all(DEMO_RECORDS):
            await runtime.seed(ACTOR.account, case.workflow, state, case.case_id)
            refs[key] = case

    anyio.run(seed)
    return runtime, refs


def _book(runtime: Runtime, trip: CaseRef) -> Any:
    """A scripted understanding: two steps, then one act booking a hotel (a Confirm card)."""

    def build(brief: Any) -> Understanding:
        brief.on_step("segment", "1 unit", 1)
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.book_hotel",
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, trip),)),
                    args={"hotel": "Avenida", "nights": "3"},
                    evidence={"hotel": "Avenida", "nights": "3"},
                ),
            )
        )

    return build


def _card_and_click(runtime: Runtime, trip: CaseRef, **listen: Any) -> tuple[Any, Any]:
    """Run a booking turn (it shows a Confirm card) and the click confirming it."""
    assert isinstance(runtime.understander, ScriptedUnderstanding)
    runtime.understander.push(_book(runtime, trip))
    out: list[Any] = []

    async def run() -> None:
        setup = await runtime.run_turn(ACTOR, "c1", TurnInput(text="book the Avenida"), **listen)
        card = setup.interactions_created[0]
        click = TurnInput(
            interaction_response=InteractionResponse(
                interaction_id=card.id,
                option_id="confirm",
                expected_revision=card.spec.bound_revision,
            )
        )
        out.extend([setup, await runtime.run_turn(ACTOR, "c1", click, **listen)])

    anyio.run(run)
    return out[0], out[1]


def _expected(setup: Any, click: Any) -> list[Any]:
    """Every event of the two turns, in order: the setup's step inside its understanding."""
    first = [TurnPhaseChanged(turn_id=setup.turn_id, phase=p) for p in PHASES]
    step = TurnStep(
        turn_id=setup.turn_id,
        name="segment",
        detail="1 unit",
        text=narrate("segment", "1 unit", "en", 1),
    )
    return [
        first[0],
        step,
        *first[1:],
        *(TurnPhaseChanged(turn_id=click.turn_id, phase=p) for p in PHASES),
    ]


@pytest.mark.parametrize("how", ["subscribe", "on_event"])
def test_a_listener_hears_every_phase_and_step_in_order(how: str) -> None:
    """A subscriber, and a turn's own ``on_event``, hear each event once, in the turn's order.

    The phase events are built only for a listener (as the step events), so a listener
    hears exactly what it heard when every event was built: the setup turn's phases with
    its step between ``received`` and ``understood``, then the click's six phases.
    """
    runtime, refs = _seeded()
    heard: list[Any] = []
    if how == "subscribe":
        runtime.subscribe(heard.append)
        setup, click = _card_and_click(runtime, refs["T1"])
    else:
        setup, click = _card_and_click(runtime, refs["T1"], on_event=heard.append)
    assert [e.operation for e in click.events] == ["trip.book_hotel"]
    assert heard == _expected(setup, click)


def test_no_phase_event_is_built_without_a_listener(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody listening: no ``TurnPhaseChanged`` is constructed, at any step that reports one.

    A listener subscribed later hears them all again, built as before.
    """
    built: list[TurnPhaseChanged] = []

    def counted(**fields: Any) -> TurnPhaseChanged:
        built.append(TurnPhaseChanged(**fields))
        return built[-1]

    # ``RuntimeParts.phase_changed`` is the one place every step reports a phase through.
    monkeypatch.setattr(runtime_parts, "TurnPhaseChanged", counted)
    runtime, refs = _seeded()
    setup, click = _card_and_click(runtime, refs["T1"])
    assert [e.operation for e in click.events] == ["trip.book_hotel"]
    assert built == []
    heard: list[Any] = []
    runtime.subscribe(heard.append)
    setup, click = _card_and_click(runtime, refs["T2"])
    assert heard == _expected(setup, click)
    assert [e for e in heard if isinstance(e, TurnPhaseChanged)] == built
