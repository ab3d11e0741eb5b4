"""A compilation's execution stands in for the policy step's only where it is the same one.

The kit's ``Workflow.compile`` checks a command and executes it on the way
(``Compiled.executed``); the reducer hands those executions to the plan
(``Plan.executed``) and the store-backed executor's ``apply_commands`` takes one instead
of validating and executing the command again, but only for a kit workflow
(``compile_validates``), the very same command and state objects and an equal execution
context (``turnframe.core.workflow.Executed``).

- For generated turns of one to three acts on two trips (renames, some to the name the
  trip has, extras, payers, date changes, some refused, a cancel that needs a card), a
  runtime with the reuse and one without it (the plan's ``executed`` dropped) reply with
  the same results, commit the same events and leave the same states; the one with the
  reuse runs ``execute`` fewer times whenever something committed.
- ``apply_commands`` ignores an entry for an equal-looking but other state, another
  command object, another context or a definition whose ``validate`` is not the kit's:
  a planted execution that differs from the real one is never what it returns then.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from typing import Any
from unittest import mock

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import turnframe.runtime.steps.reduction as reduction_step
from turnframe.core import (
    Actor,
    CaseRef,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
    WorkflowRegistry,
)
from turnframe.core.commands import CommandEnvelope, DirectUserAct
from turnframe.core.events import EventDraft
from turnframe.core.ports import LoadedCase
from turnframe.core.workflow import Executed, Execution, ExecutionContext, Refusal
from turnframe.runtime import Application, FixedClock, Runtime, SequentialIds
from turnframe.runtime.errors import CommandRejected
from turnframe.runtime.transition import apply_commands
from turnframe.samples.travel import ManifestWorkflow, TravelerWorkflow, TripWorkflow, seed_state
from turnframe.samples.travel.trip_model import RenameTrip, TripState
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))


class _CountingTrips(TripWorkflow):
    """The kit's trip workflow, counting ``execute`` (its compile and validate stay the kit's)."""

    def __init__(self) -> None:
        super().__init__()
        self.executions = 0

    def execute(self, state: Any, command: Any, ctx: ExecutionContext) -> Any:
        self.executions += 1
        return super().execute(state, command, ctx)


ACTS = st.one_of(
    st.tuples(
        st.just("trip.rename"),
        st.fixed_dictionaries({"name": st.sampled_from(["Lisbon", "Porto", "Faro"])}),
    ),
    st.tuples(
        st.just("trip.add_extra"),
        st.fixed_dictionaries(
            {"kind": st.sampled_from(["seat", "baggage"]), "payer": st.just("company")}
        ),
    ),
    st.tuples(
        st.just("trip.set_extra_payer"),
        st.fixed_dictionaries(
            {"extra": st.sampled_from(["E1", "E9"]), "payer": st.just("company")}
        ),
    ),
    st.tuples(
        st.just("trip.change_dates"),
        st.fixed_dictionaries(
            {
                "start": st.sampled_from(["2026-06-01", "2026-04-01"]),
                "end": st.sampled_from(["2026-06-05", "2026-05-30"]),
            }
        ),
    ),
    st.tuples(st.just("trip.cancel"), st.just({})),
)


@contextmanager
def _without_reuse() -> Iterator[None]:
    """Run turns with the plan's ``executed`` dropped: the policy step executes afresh."""
    real = reduction_step.reduce_turn

    def reduce_turn(inp: Any, registry: Any) -> Any:
        return replace(real(inp, registry), executed=())

    with mock.patch.object(reduction_step, "reduce_turn", reduce_turn):
        yield


async def _turn(acts: list[tuple[str, int, dict[str, str]]]) -> tuple[Any, int]:
    trips = _CountingTrips()
    app = Application(
        name="executed",
        registry=WorkflowRegistry([trips, TravelerWorkflow(), ManifestWorkflow()]),
    )
    store = InMemoryStore()
    script = ScriptedUnderstanding()
    runtime = Runtime(app, store, script, clock=FixedClock(TODAY), ids=SequentialIds())
    cases = []
    for key, name, extras in (("T1", "Lisbon", [{"kind": "insurance"}]), ("T2", "Porto", [])):
        workflow, state = seed_state(
            {"key": key, "workflow": "trip", "name": name, "extras": extras}, {}
        )
        cases.append(await runtime.seed(ACTOR.account, workflow, state, case_id=key.lower()))
    trips.executions = 0

    def build(brief: Any) -> Understanding:
        return Understanding(
            acts=tuple(
                SemanticAct(
                    id=f"a{n}",
                    operation=operation,
                    target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, cases[on]),)),
                    args=dict(args),
                    evidence=dict(args),
                )
                for n, (operation, on, args) in enumerate(acts, 1)
            )
        )

    script.push(build)
    result = await runtime.run_turn(ACTOR, "c1", TurnInput(text="do these"))
    rows = [await store.load_case(case) for case in cases]
    outcome = (
        sorted((k, v.status.value, v.code) for k, v in result.results.items()),
        [(e.case, e.type, e.data, e.revision) for e in result.events],
        [(row.state, row.revision) if row else None for row in rows],
        len(result.interactions_created),
    )
    return outcome, trips.executions


@settings(max_examples=60, deadline=None)
@given(
    acts=st.lists(
        st.tuples(ACTS, st.integers(min_value=0, max_value=1)).map(
            lambda drawn: (drawn[0][0], drawn[1], drawn[0][1])
        ),
        min_size=1,
        max_size=3,
    )
)
def test_reusing_the_compilations_executions_changes_nothing_but_the_work(
    acts: list[tuple[str, int, dict[str, str]]],
) -> None:
    reused, fewer = anyio.run(_turn, acts)
    with _without_reuse():
        afresh, more = anyio.run(_turn, acts)
    assert reused == afresh
    if reused[1]:  # something committed: its commands were executed once, not twice
        assert fewer < more, (fewer, more)
    else:
        assert fewer <= more


# apply_commands' own guard -----------------------------------------------------------------
CASE = CaseRef("trip", "t1")
STORED = {"name": "Start", "status": "planning"}


def _envelope(command: Any, registry: WorkflowRegistry) -> CommandEnvelope:
    return CommandEnvelope(
        command=command,
        case=CASE,
        actor=ACTOR,
        expected_revision=1,
        idempotency_key="k",
        origin=DirectUserAct(turn_id="t"),
        policy=registry.workflow("trip").policy(None, command),
        act_id="a1",
    )


def _planted(state: Any, command: Any, turn_id: str = "t") -> Executed:
    """An entry whose execution differs from the real one (a marker name, a marker event)."""
    ctx = ExecutionContext(case=CASE, actor=ACTOR, today=TODAY, turn_id=turn_id)
    marker = Execution(
        state=TripState(name="PLANTED"),
        events=(
            EventDraft(type="trip.renamed", data={"trip": "PLANTED"}, operation="trip.rename"),
        ),
    )
    return Executed(state=state, command=command, context=ctx, execution=marker)


def _apply(registry: WorkflowRegistry, command: Any, typed: Any, entry: Executed | None) -> Any:
    loaded = LoadedCase(case=CASE, state=dict(STORED), revision=1)
    return apply_commands(
        registry,
        loaded,
        [_envelope(command, registry)],
        today=TODAY,
        turn_id="t",
        typed=typed,
        executed=None if entry is None else {id(entry.command): entry},
    )


def test_an_entry_for_the_same_objects_and_context_is_taken() -> None:
    registry = WorkflowRegistry([TripWorkflow()])
    typed = registry.workflow("trip").typed(dict(STORED))
    command = RenameTrip(name="Lisbon")
    got = _apply(registry, command, typed, _planted(typed, command))
    assert got.state["name"] == "PLANTED"  # the entry stood in for validate and execute


@pytest.mark.parametrize("change", ["other_state", "other_command", "other_turn", "own_validate"])
def test_an_entry_that_is_not_the_same_execution_is_ignored(change: str) -> None:
    trips = TripWorkflow()
    if change == "own_validate":
        trips.validate = lambda state, command, today, locale="en": Refusal(  # type: ignore[method-assign]
            code="guarded", sentence="Not here."
        )
    registry = WorkflowRegistry([trips])
    typed = registry.workflow("trip").typed(dict(STORED))
    command = RenameTrip(name="Lisbon")
    entry = _planted(typed, command)
    if change == "other_state":
        entry = replace(entry, state=registry.workflow("trip").typed(dict(STORED)))
        assert entry.state == typed and entry.state is not typed
    elif change == "other_command":
        entry = replace(entry, command=RenameTrip(name="Lisbon"))
        entry_key_command = command  # keyed under the batch's command, holding another
        got = apply_commands(
            registry,
            LoadedCase(case=CASE, state=dict(STORED), revision=1),
            [_envelope(command, registry)],
            today=TODAY,
            turn_id="t",
            typed=typed,
            executed={id(entry_key_command): entry},
        )
        assert got.state["name"] == "Lisbon"
        return
    elif change == "other_turn":
        entry = _planted(typed, command, turn_id="another")
    if change == "own_validate":
        with pytest.raises(CommandRejected):
            _apply(registry, command, typed, entry)
        return
    got = _apply(registry, command, typed, entry)
    assert got.state["name"] == "Lisbon"  # validated and executed afresh
