"""Helpers of the versioned-workflow tests: a second and a third version of ``trip``.

``TripV2`` reads and writes the same state as version 1 but no longer offers
``trip.rename`` (so a reduction replayed under it differs from one under version 1);
``TripV3`` reads version 1's states but stores its own in a shape version 1 cannot load
(wrapped under ``"v3"``).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from turnframe.core.acts import ProposedTarget, SemanticAct, Understanding
from turnframe.core.ids import Actor, CaseRef, JSONObject
from turnframe.core.turn import TurnInput
from turnframe.core.view import WorkflowView
from turnframe.runtime import Runtime
from turnframe.runtime.ports import FixedClock
from turnframe.runtime.turn import TurnResult
from turnframe.samples.travel import DEMO_RECORDS, seed_all, travel_application
from turnframe.samples.travel.trip import TripWorkflow
from turnframe.samples.travel.trip_model import TripState, dump_trip, load_trip
from turnframe.store.base import TurnStore
from turnframe.understand import Brief, ScriptedUnderstanding

TODAY = date(2026, 5, 1)


class TripV2(TripWorkflow):
    """``trip`` version 2: the same state; ``trip.rename`` is no longer offered."""

    version = "trip/2"

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        """Return version 1's offer without ``trip.rename``."""
        return tuple(k for k in super().offered(view, actor) if k != "trip.rename")


class TripV3(TripWorkflow):
    """``trip`` version 3: reads version 1's states, writes ``{"v3": <version 1's JSON>}``."""

    version = "trip/3"

    def load_state(self, data: JSONObject) -> TripState:
        """Return the state stored under ``"v3"``, or version 1's shape (it reads both)."""
        inner = data.get("v3")
        return load_trip(inner if isinstance(inner, dict) else data)

    def dump_state(self, state: TripState) -> JSONObject:
        """Return ``state`` wrapped under ``"v3"``."""
        return {"v3": dump_trip(state)}


class Deployment:
    """A travel runtime over ``store`` with demo records seeded into one account."""

    def __init__(self, store: TurnStore, *extra: Any, telemetry: Any = None) -> None:
        app = travel_application()
        for definition in extra:
            app.registry.register(definition)
        self.registry = app.registry
        self.script = ScriptedUnderstanding()
        self.runtime = Runtime(
            app, store, self.script, clock=FixedClock(TODAY), telemetry=telemetry
        )
        self.store = store
        self.actor = Actor(account="acct", user="ana")
        self.refs: dict[str, CaseRef] = {}

    async def seed(self) -> None:
        """Seed ``DEMO_RECORDS`` (under the live versions)."""
        for key, case, state in seed_all(DEMO_RECORDS, lambda w, k: CaseRef(w, k.lower())):
            await self.runtime.seed(self.actor.account, case.workflow, state, case.case_id)
            self.refs[key] = case

    async def propose(
        self, conversation: str, operation: str, key: str = "T1", **args: str
    ) -> TurnResult:
        """Run a text turn in ``conversation`` proposing ``operation`` on record ``key``."""
        self.push(operation, key, **args)
        return await self.runtime.run_turn(self.actor, conversation, TurnInput(text=operation))

    def push(self, operation: str, key: str, **args: str) -> None:
        """Queue the scripted reading of one turn proposing ``operation`` on record ``key``."""

        def build(brief: Brief) -> Understanding:
            handle = self.runtime.handle_for(brief.turn_id, self.refs[key])
            act = SemanticAct(
                id="a1",
                operation=operation,
                target=ProposedTarget(handles=(handle,)),
                args=args,
                evidence=dict(args),
            )
            return Understanding(acts=(act,))

        self.script.push(build)

    async def add_extra(self, conversation: str, key: str = "T1") -> TurnResult:
        """Propose ``trip.add_extra`` (baggage, the company pays) on trip ``key``."""
        return await self.propose(conversation, "trip.add_extra", key, kind="seat", payer="company")

    async def rename(self, conversation: str, name: str, key: str = "T3") -> TurnResult:
        """Propose ``trip.rename`` of trip ``key`` to ``name``."""
        return await self.propose(conversation, "trip.rename", key, name=name)
