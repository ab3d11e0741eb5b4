"""Projection invariants (I3) and JSON round trips over generated states of all three workflows."""

from __future__ import annotations

import json
import string
from dataclasses import replace
from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, CaseRef, ExecutionContext
from turnframe.samples.travel import (
    EXTRA_KINDS,
    MANIFEST_STATUSES,
    AddExtra,
    AddTraveler,
    Extra,
    ManifestState,
    ManifestWorkflow,
    RenameTrip,
    SetExtraPayer,
    TravelerState,
    TravelerWorkflow,
    TripState,
    TripWorkflow,
)

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1")
CTX = ExecutionContext(case=CaseRef("trip", "c1"), actor=ACTOR, today=TODAY, turn_id="t1")
TERMINAL = {
    "trip": {"completed", "cancelled"},
    "traveler": {"deleted"},
    "manifest": {"issued", "rejected"},
}
PHASES = {
    "trip": {"planning", "confirmed", "completed", "cancelled"},
    "traveler": {"active", "deleted"},
    "manifest": set(MANIFEST_STATUSES),
}

ids = st.text(alphabet=string.ascii_lowercase + string.digits, min_size=1, max_size=6)
travelers = st.builds(CaseRef, st.just("traveler"), ids)
days = st.dates(min_value=date(1950, 1, 1), max_value=date(2035, 12, 31))
words = st.text(min_size=1, max_size=12)


@st.composite
def trip_states(draw: st.DrawFn) -> TripState:
    start, end = draw(st.none() | days), draw(st.none() | days)
    if start and end and end < start:
        start, end = end, start
    people = tuple(draw(st.lists(travelers, unique=True, max_size=3)))
    numbers = sorted(draw(st.sets(st.integers(1, 9), max_size=4)))
    payers = st.none() | st.just("company") | (st.sampled_from(people) if people else st.none())
    extras = tuple(
        Extra(
            id=f"E{n}",
            kind=draw(st.sampled_from(EXTRA_KINDS)),
            details=draw(st.none() | words),
            payer=draw(payers),
            nights=draw(st.none() | st.integers(1, 14)),
        )
        for n in numbers
    )
    return TripState(
        name=draw(words),
        destination=draw(st.none() | words),
        start=start,
        end=end,
        travelers=people,
        extras=extras,
        status=draw(st.sampled_from(("planning", "confirmed", "completed", "cancelled"))),
        next_extra=(numbers[-1] if numbers else 0) + 1 + draw(st.integers(0, 3)),
    )


traveler_states = st.builds(
    TravelerState,
    full_name=words,
    birth_date=st.none() | days,
    email=st.none() | st.emails(),
    status=st.sampled_from(("active", "deleted")),
)


@st.composite
def manifest_states(draw: st.DrawFn) -> ManifestState:
    people = tuple(draw(st.lists(travelers, unique=True, max_size=4)))
    born = {p: draw(days) for p in people if draw(st.booleans())}
    return ManifestState(
        trip=CaseRef("trip", draw(ids)),
        airline=draw(st.sampled_from(("TP", "FR", "ZZ"))),
        passengers=people,
        status=draw(st.sampled_from(MANIFEST_STATUSES)),
        trip_name=draw(st.none() | words),
        trip_start=draw(st.none() | days),
        passenger_birth_dates=born,
    )


CASES: list[tuple[Any, Any]] = [
    (TripWorkflow(), trip_states()),
    (TravelerWorkflow(), traveler_states),
    (ManifestWorkflow(), manifest_states()),
]


def check_view(workflow: Any, state: Any) -> None:
    view = workflow.project(state, TODAY)
    assert view.workflow == workflow.name and view.version == workflow.version
    assert view.phase in PHASES[workflow.name]
    assert view.exists
    obligation_ids = [o.id for o in view.obligations]
    assert len(obligation_ids) == len(set(obligation_ids))
    terminal = view.phase in TERMINAL[workflow.name]
    assert (view.outcome is not None) == terminal
    if terminal:
        assert view.outcome.code == view.phase
        assert workflow.offered(view, ACTOR) == ()
        assert view.obligations == ()
    registered = {op.key for op in workflow.operations()}
    creating = {op.key for op in workflow.operations() if op.creates_case}
    offered = set(workflow.offered(view, ACTOR))
    assert offered <= registered - creating
    assert workflow.project(state, TODAY) == view  # pure
    for locale in ("en", "pt-PT"):
        assert workflow.candidate_label(CaseRef(workflow.name, "x"), state, locale)
    assert isinstance(workflow.search_text(state), str)
    assert workflow.briefing(view)


def round_trip(workflow: Any, state: Any) -> None:
    data = json.loads(json.dumps(workflow.dump_state(state)))
    assert workflow.load_state(data) == state


@settings(max_examples=150)
@given(st.data())
def test_every_view_has_one_phase_unique_obligations_and_terminal_outcomes(data):
    for workflow, strategy in CASES:
        check_view(workflow, data.draw(strategy))


@settings(max_examples=150)
@given(st.data())
def test_load_and_dump_round_trip(data):
    for workflow, strategy in CASES:
        round_trip(workflow, data.draw(strategy))


def test_an_absent_state_is_not_yet_never_no_longer():
    creating = {"trip": ("trip.start",), "traveler": ("traveler.register",), "manifest": ()}
    for workflow, _ in CASES:
        view = workflow.project(None, TODAY)
        assert not view.exists
        assert view.outcome is None and view.blocking is None
        assert view.phase not in TERMINAL[workflow.name]
        assert workflow.offered(view, ACTOR) == creating[workflow.name]
        assert workflow.briefing(view)
    assert [o.id for o in TripWorkflow().project(None, TODAY).obligations] == ["dates", "travelers"]


@given(trip_states(), st.sampled_from(EXTRA_KINDS), words)
def test_obligation_ids_are_stable_across_unrelated_changes(state, kind, name):
    state = replace(state, status="planning")
    workflow = TripWorkflow()
    before = [o.id for o in workflow.project(state, TODAY).obligations]
    renamed = workflow.execute(state, RenameTrip(name=name), CTX).state
    assert [o.id for o in workflow.project(renamed, TODAY).obligations] == before
    added = workflow.execute(state, AddExtra(kind=kind), CTX).state
    after = [o.id for o in workflow.project(added, TODAY).obligations]
    assert after == [*before, f"payer:E{state.next_extra}"]
    paid = workflow.execute(
        added, SetExtraPayer(extra=f"E{state.next_extra}", payer="company"), CTX
    ).state
    assert [o.id for o in workflow.project(paid, TODAY).obligations] == before


def test_obligations_are_parameterised_and_discharged():
    workflow = TripWorkflow()
    state = TripState(name="Porto", extras=(Extra(id="E7", kind="meal"),), next_extra=8)
    view = workflow.project(state, TODAY)
    payer = view.obligation("payer:E7")
    assert payer is not None and payer.kind == "payer" and payer.params == {"extra": "E7"}
    assert payer.waits_for == "trip.set_extra_payer"
    ana = CaseRef("traveler", "ana")
    state = workflow.execute(state, AddTraveler(traveler=ana), CTX).state
    assert workflow.project(state, TODAY).obligation("travelers") is None


@given(trip_states())
def test_commands_serialise_to_json_objects(state):
    for command in (
        AddExtra(kind="meal", payer=CaseRef("traveler", "p1")),
        SetExtraPayer(extra="E1", payer="company"),
        RenameTrip(name=state.name),
    ):
        data = command.to_json()
        assert json.loads(json.dumps(data)) == data
    assert AddExtra(kind="meal", payer=CaseRef("traveler", "p1")).to_json() == {
        "kind": "meal",
        "details": None,
        "payer": "traveler/p1",
    }
    assert AddExtra(kind="meal").operation == "trip.add_extra"
