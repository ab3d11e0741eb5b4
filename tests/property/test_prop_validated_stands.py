"""A compilation's ``validated`` never stands in for a ``validate`` it did not run.

``Workflow.compile`` says ``Compiled.validated`` when its own ``check`` passed on the
stored state, so the reducer need not ask ``validate`` the same question again
(``runtime/reduce/acts.py``). Hypothesis draws an operation the trip workflow compiles
on a stored trip and a definition whose ``validate`` refuses that operation while its
compilation is still the kit's: a wrapper that hands every other member (``compile``
among them) to a kit workflow, a subclass whose ``compile`` is another kit instance's,
a kit workflow whose instance had ``validate`` replaced, and a subclass overriding
``replay``. In each, the act must be refused with ``validate``'s own code, before any
confirmation card is drawn and with nothing committed, exactly as without the shortcut.
The plain kit workflow, for contrast, plans the act.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CompileRequest,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
    WorkflowRegistry,
)
from turnframe.core.authoring.base import compile_validates
from turnframe.core.workflow import Refusal
from turnframe.runtime import Application, FixedClock, Runtime, SequentialIds
from turnframe.samples.travel import ManifestWorkflow, TravelerWorkflow, TripWorkflow, seed_state
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
ACTS = {
    "trip.rename": {"name": "Porto in May"},
    "trip.cancel": {},
    "trip.book_hotel": {"hotel": "Avenida", "nights": "3"},
}
GUARD = Refusal(code="guarded", sentence="Not allowed here.")


def _guarded(operation: str) -> Any:
    def validate(state: Any, command: Any, today: date, locale: str = "en") -> Refusal | None:
        return GUARD if command.operation == operation else None

    return validate


class _Wrapper:
    """Every member from a kit workflow (``compile`` too), ``validate`` its own."""

    def __init__(self, operation: str) -> None:
        self._inner = TripWorkflow()
        self._refuse = _guarded(operation)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def validate(self, state: Any, command: Any, today: date, locale: str = "en") -> Any:
        return self._refuse(state, command, today, locale) or self._inner.validate(
            state, command, today, locale
        )


class _OtherCompiles(TripWorkflow):
    """A kit subclass whose ``compile`` is another kit instance's."""

    def __init__(self, operation: str) -> None:
        super().__init__()
        self._other = TripWorkflow()
        self._refuse = _guarded(operation)

    def compile(self, request: CompileRequest[Any]) -> Any:
        return self._other.compile(request)

    def validate(self, state: Any, command: Any, today: date, locale: str = "en") -> Any:
        return self._refuse(state, command, today, locale) or super().validate(
            state, command, today, locale
        )


class _OwnReplay(TripWorkflow):
    """A kit subclass with its own ``replay`` (here: the stored state, as the kit's)."""

    def __init__(self, operation: str) -> None:
        super().__init__()
        self._refuse = _guarded(operation)

    def replay(self, request: CompileRequest[Any]) -> Any:
        return super().replay(request)

    def check(self, state: Any, command: Any, today: date) -> None:
        super().check(state, command, today)


def _definition(shape: str, operation: str) -> tuple[Any, bool]:
    """Return the trip definition of ``shape`` and whether its validate refuses ``operation``."""
    if shape == "wrapper":
        return _Wrapper(operation), True
    if shape == "other_compiles":
        return _OtherCompiles(operation), True
    if shape == "instance_validate":
        wf = TripWorkflow()
        wf.validate = _guarded(operation)  # type: ignore[method-assign]
        return wf, True
    if shape == "own_replay":
        return _OwnReplay(operation), False
    return TripWorkflow(), False


async def _turn(shape: str, operation: str) -> tuple[str, str | None, int, Any]:
    definition, refuses = _definition(shape, operation)
    app = Application(
        name="guarded",
        registry=WorkflowRegistry([definition, TravelerWorkflow(), ManifestWorkflow()]),
    )
    store = InMemoryStore()
    script = ScriptedUnderstanding()
    runtime = Runtime(app, store, script, clock=FixedClock(date(2026, 5, 1)), ids=SequentialIds())
    workflow, state = seed_state({"key": "T1", "workflow": "trip", "name": "Lisbon"}, {})
    trip = await runtime.seed(ACTOR.account, workflow, state, case_id="t1")
    args = ACTS[operation]
    script.push(
        lambda brief: Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation=operation,
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, trip),)),
                    args=dict(args),
                    evidence=dict(args),
                ),
            )
        )
    )
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="do it"))
    row = await store.load_case(trip)
    assert row is not None
    (item,) = result.results.values()
    return item.status.value, item.code, len(result.interactions_created), (refuses, row.revision)


@settings(max_examples=30, deadline=None)
@given(
    shape=st.sampled_from(["wrapper", "other_compiles", "instance_validate", "own_replay", "kit"]),
    operation=st.sampled_from(sorted(ACTS)),
)
def test_validate_is_asked_unless_the_compilation_ran_its_very_rules(
    shape: str, operation: str
) -> None:
    status, code, cards, (refuses, revision) = anyio.run(_turn, shape, operation)
    if refuses:
        assert (status, code, cards, revision) == ("rejected", "guarded", 0, 1), shape
    else:
        assert status != "rejected", (shape, operation, code)


def test_compile_validates_only_the_kits_own_rules() -> None:
    assert compile_validates(TripWorkflow())
    assert not compile_validates(_Wrapper("trip.cancel"))
    assert not compile_validates(_OtherCompiles("trip.cancel"))
    assert not compile_validates(_OwnReplay("trip.cancel"))
    replaced = TripWorkflow()
    replaced.validate = _guarded("trip.cancel")  # type: ignore[method-assign]
    assert not compile_validates(replaced)
    assert not compile_validates(object())
