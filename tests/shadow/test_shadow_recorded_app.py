"""Which workflows a recorded reduction names, and refusing the wrong ``--app`` (docs/shadow.md "Use")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core import UsageError
from turnframe.eval.shadow import check_recorded_with, recorded_workflows
from turnframe.samples.expenses import expenses_application
from turnframe.samples.travel import travel_application

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(JSON)
def test_any_recorded_input_is_read_without_raising(data: Any) -> None:
    assert all(isinstance(name, str) for name in recorded_workflows(data))


@given(
    versions=st.lists(
        st.sampled_from(["trip", "traveler", "manifest", "expense_report"]), max_size=4
    ),
    cases=st.lists(st.sampled_from(["trip", "traveler", "manifest", "expense_report"]), max_size=4),
)
def test_a_workflow_the_app_lacks_is_refused_by_name(versions: list[str], cases: list[str]) -> None:
    data = {
        "versions": dict.fromkeys(versions, "1"),
        "snapshots": [{"case": {"workflow": w, "case_id": "x"}} for w in cases],
    }
    assert recorded_workflows(data) == set(versions) | set(cases)
    app = travel_application()
    missing = sorted(set(versions + cases) - set(app.registry.names()))
    if not missing:
        check_recorded_with(app, "t1", data)
        return
    with pytest.raises(UsageError, match=f"workflow '{missing[0]}'.*application 'travel'"):
        check_recorded_with(app, "t1", data)


def test_expenses_refuses_a_travel_turn() -> None:
    data = {"snapshots": [{"case": {"workflow": "trip", "case_id": "t3"}}]}
    with pytest.raises(UsageError, match="'trip'.*'expenses'.*does not register"):
        check_recorded_with(expenses_application(), "t-rename", data)
