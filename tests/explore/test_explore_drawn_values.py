"""The shipped workflows stay clean with argument values drawn by Hypothesis (docs/explorer.md "Argument values").

The explorer's own values are fixed (so a suite explores the same states every run);
here Hypothesis draws others from strategies derived from each argument's kind, given
to the explorer through the ``explore_values`` hook, so blank text, past dates, negative
numbers, odd currencies and foreign records reach the shipped workflows' own code too.
Every property but the dead end (which depends on the values tried) must still hold.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import Amount, ArgumentKind, ArgumentSpec, CaseRef, OperationSpec
from turnframe.runtime.app import Application
from turnframe.runtime.loading import load_application
from turnframe.samples.expenses import expenses_application
from turnframe.samples.travel import DEMO_RECORDS, travel_application
from turnframe.testing.explore import EXPLORE_TODAY, DeadEnd, explore

HELPDESK = Path(__file__).resolve().parents[2] / "examples" / "helpdesk" / "src"


def _strategy(spec: ArgumentSpec) -> st.SearchStrategy[Any] | None:
    """Values of the kind the runtime's evaluation can give (a choice is one of the choices)."""
    kind = spec.kind
    if kind is ArgumentKind.TEXT:
        return st.text(max_size=12)
    if kind is ArgumentKind.EMAIL:
        return st.emails()
    if kind is ArgumentKind.DATE:
        span = timedelta(days=400)
        return st.dates(min_value=EXPLORE_TODAY - span, max_value=EXPLORE_TODAY + span)
    if kind is ArgumentKind.INTEGER:
        return st.integers(-3, 40)
    if kind is ArgumentKind.NUMBER:
        return st.decimals(-10, 1000, places=2, allow_nan=False, allow_infinity=False)
    if kind is ArgumentKind.AMOUNT:
        return st.builds(
            Amount,
            value=st.decimals(-10, 100000, places=2, allow_nan=False, allow_infinity=False),
            currency=st.none() | st.sampled_from(["EUR", "USD", "GBP", "XYZ"]),
        )
    if kind is ArgumentKind.CHOICE:
        return st.sampled_from(spec.choices)
    if kind is ArgumentKind.RECORD:
        workflow = spec.record_workflow or "record"
        ids = st.text("abc123", min_size=1, max_size=4)
        refs = st.builds(CaseRef, st.just(workflow), ids)
        return refs | st.sampled_from(spec.literals) if spec.literals else refs
    return None  # parts: the workflow's find_parts offers them


def _with_drawn_values(app: Application, data: st.DataObject) -> None:
    for name in app.registry.names():
        raw: Any = app.registry.workflow(name).raw
        drawn: dict[tuple[str, str], tuple[Any, ...] | None] = {}
        for op in raw.operations():
            for spec in op.arguments:
                strategy = _strategy(spec)
                drawn[(op.key, spec.name)] = (
                    None
                    if strategy is None
                    else tuple(data.draw(st.lists(strategy, min_size=1, max_size=3)))
                )

        def values(operation: OperationSpec, argument: ArgumentSpec, table=drawn) -> Any:
            return table.get((operation.key, argument.name))

        raw.explore_values = values


def _helpdesk() -> Application:
    return load_application("helpdesk.app:application")


@pytest.fixture(autouse=True)
def _helpdesk_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(HELPDESK))


@pytest.mark.parametrize(
    ("make", "records"),
    [
        (expenses_application, None),
        (_helpdesk, None),
        (travel_application, DEMO_RECORDS),
    ],
    ids=["expenses", "helpdesk", "travel"],
)
@settings(max_examples=6)
@given(data=st.data())
def test_shipped_workflows_have_no_finding_with_drawn_values(
    make: Any, records: Any, data: st.DataObject
) -> None:
    app = make()
    _with_drawn_values(app, data)
    report = explore(app, depth=2, states=150, records=records)
    # A dead end is relative to the values tried (only refused values leave a draft with
    # no move), so it is not asked of drawn values; every other property is.
    found = [f for f in report.findings if not isinstance(f, DeadEnd)]
    assert not found, "\n".join(str(f) for f in found)
