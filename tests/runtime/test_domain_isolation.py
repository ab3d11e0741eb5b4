"""A domain exception during a turn names its workflow and member (core/guard.py)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import anyio
import pytest

from turnframe.core import Actor, ProposedTarget, SemanticAct, TurnInput, Understanding
from turnframe.core.errors import DomainError, UsageError
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import seed_order, seed_state, travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding
from turnframe.understand.contract import OffContractUnderstanding

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
RECORD = {
    "key": "T1",
    "workflow": "trip",
    "name": "Lisbon",
    "start": "2026-05-12",
    "end": "2026-05-15",
}


class _Raising:
    def __init__(self, inner: Any, member: str) -> None:
        self._inner, self._member = inner, member

    def __getattr__(self, name: str) -> Any:
        if name == self._member:

            def boom(*args: Any, **kwargs: Any) -> Any:
                raise ValueError(f"bug in {name}")

            return boom
        return getattr(self._inner, name)


@pytest.mark.parametrize("member", ["compile", "validate", "execute", "briefing"])
def test_a_domain_exception_mid_turn_is_a_domain_error_naming_workflow_and_member(
    member: str,
) -> None:
    async def main() -> None:
        app = travel_application()
        defs = [
            _Raising(app.registry.workflow(n).raw, member)
            if n == "trip"
            else app.registry.workflow(n).raw
            for n in app.registry.names()
        ]
        app = replace(app, registry=WorkflowRegistry(defs))
        refs: dict[str, Any] = {}
        holder: list[Runtime] = []

        def entry(brief: Any) -> Understanding:
            h = holder[0].handle_for(brief.turn_id, refs["T1"])
            act = SemanticAct(
                id="a1",
                operation="trip.add_extra",
                target=ProposedTarget(handles=(h,)),
                args={"kind": "insurance"},
            )
            return Understanding(acts=(act,))

        runtime = Runtime(
            app,
            InMemoryStore(),
            ScriptedUnderstanding([entry]),
            clock=FixedClock(date(2026, 5, 1)),
            ids=SequentialIds(),
        )
        holder.append(runtime)
        for record in seed_order([RECORD]):
            workflow, state = seed_state(record, refs)
            refs[str(record["key"])] = await runtime.seed("acme", workflow, state)
        with pytest.raises(DomainError) as caught:
            await runtime.run_turn(ACTOR, "c1", TurnInput(text="Add insurance."))
        assert (caught.value.workflow, caught.value.method) == ("trip", member)
        assert isinstance(caught.value.__cause__, ValueError)

    anyio.run(main)


def test_a_turnframe_error_the_domain_raises_passes_through_unwrapped() -> None:
    trip = travel_application().registry.workflow("trip").raw
    registry = WorkflowRegistry([_Raising(trip, "nothing")])
    guarded = registry.workflow("trip").definition

    def refuse(*args: Any) -> Any:
        raise UsageError("on purpose")

    guarded.search_text = refuse  # type: ignore[method-assign]
    with pytest.raises(UsageError, match="on purpose") as caught:
        guarded.search_text(None)
    assert not isinstance(caught.value, DomainError)


def test_a_scripted_act_with_an_unknown_argument_is_refused_when_scripted() -> None:
    registry = travel_application().registry
    act = SemanticAct(
        id="a1",
        operation="trip.add_extra",
        target=ProposedTarget(find="Lisbon"),
        args={"kind": "insurance", "colour": "red"},
    )
    with pytest.raises(OffContractUnderstanding) as caught:
        ScriptedUnderstanding([Understanding(acts=(act,))], registry=registry)
    text = str(caught.value)
    assert "'a1'" in text and "'colour'" in text and "trip.add_extra" in text
    assert "kind" in text  # the operation's known arguments are listed
    # Without the registry it is refused by the runtime, before anything is resolved.
    ScriptedUnderstanding([Understanding(acts=(act,))])
