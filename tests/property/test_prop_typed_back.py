"""Re-projection reuses a loaded-back typed state only for the very JSON object it came from.

- ``apply_commands`` returns, beside the new state, what ``load_state`` gave for that
  very object (``IndexedTransition.typed``), equal to typing the state afresh.
- ``reproject.typed_back`` takes a batch's typed state for a row only when the row's
  ``state`` *is* the batch's object: for generated turns whose rows hold the batch's own
  object, an equal-looking copy (another write, a replayed commit, another account's
  row of the same case id) or no row at all, every typed state it returns equals typing
  that row's state afresh, and a row holding any other object is typed when read. A
  check by equality or by case alone serves the marker planted here and fails.
"""

from __future__ import annotations

import copy
from datetime import date
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import Actor, CaseRef
from turnframe.core.commands import CommandEnvelope, DirectUserAct
from turnframe.core.ports import LoadedCase
from turnframe.core.workflow import WorkflowRegistry
from turnframe.runtime.steps.reproject import typed_back
from turnframe.runtime.transition import apply_commands
from turnframe.runtime.turn import BatchRequest
from turnframe.samples.travel import TripWorkflow
from turnframe.samples.travel.trip_model import RenameTrip
from turnframe.store.base import CaseRow, CommitRequest

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
REGISTRY = WorkflowRegistry([TripWorkflow()])
TRIP = REGISTRY.workflow("trip")
CASES = [CaseRef("trip", f"t{n}") for n in range(3)]


def _transition(case: CaseRef, name: str) -> Any:
    loaded = LoadedCase(case=case, state={"name": "Start", "status": "planning"}, revision=1)
    command = RenameTrip(name=name)
    envelope = CommandEnvelope(
        command=command,
        case=case,
        actor=ACTOR,
        expected_revision=1,
        idempotency_key="k",
        origin=DirectUserAct(turn_id="t"),
        policy=TRIP.policy(None, command),
        act_id="a1",
    )
    return apply_commands(REGISTRY, loaded, [envelope], today=TODAY, turn_id="t")


def _request(case: CaseRef, state: Any, account: str = "acme") -> CommitRequest:
    return CommitRequest(
        account=account,
        case=case,
        expected_revision=1,
        state=state,
        events=(),
        idempotency_key="k",
        request_hash="h",
        turn_id="t",
    )


@settings(max_examples=100, deadline=None)
@given(
    plan=st.lists(
        st.tuples(
            st.sampled_from(CASES),
            st.sampled_from(["Lisbon", "Porto"]),
            st.sampled_from(["same", "copy", "other_account", "none"]),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_a_typed_state_is_reused_only_for_its_own_object(
    plan: list[tuple[CaseRef, str, str]],
) -> None:
    batches: list[BatchRequest] = []
    rows: dict[CaseRef, CaseRow] = {}
    own: dict[CaseRef, bool] = {}
    marker = object()
    for case, name, row_kind in plan:
        transition = _transition(case, name)
        assert transition.typed is not None
        assert transition.typed[0] is transition.state
        assert transition.typed[1] == TRIP.typed(transition.state)
        # The planted typed state is a marker: served for another object, it shows.
        batches.append(
            BatchRequest(
                request=_request(case, transition.state),
                act_ids=("a1",),
                typed=(transition.state, marker),
            )
        )
        if row_kind == "none":
            rows.pop(case, None)
            own.pop(case, None)
            continue
        state = transition.state if row_kind == "same" else copy.deepcopy(transition.state)
        account = "other" if row_kind == "other_account" else "acme"
        rows[case] = CaseRow(case=case, account=account, state=state, revision=2)
        own[case] = row_kind == "same"
    found = typed_back(batches, rows)
    for case, typed in found.items():
        assert typed is marker
        assert own.get(case), (case, plan)
    for case, is_own in own.items():
        assert (case in found) == is_own
