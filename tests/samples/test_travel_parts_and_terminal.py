"""The registry's part-argument rule and the terminal-phase hook (ADR 0014, I3, I8)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from turnframe.core import (
    ArgumentKind,
    ArgumentSpec,
    OperationSpec,
    Outcome,
    RegistryError,
    WorkflowRegistry,
    WorkflowView,
)
from turnframe.core.registration import REQUIRED_MEMBERS
from turnframe.samples.travel import travel_application
from turnframe.samples.travel.trip import TripWorkflow
from turnframe.samples.travel.trip_model import Extra, TripState


class _Bare:
    """The smallest workflow shape the registry reads: a name, a version, operations."""

    name = "thing"
    version = "thing/1"

    def __init__(self, kind: ArgumentKind) -> None:
        self._ops = (
            OperationSpec(
                key="thing.drop_part",
                workflow="thing",
                summary="Drop a part.",
                arguments=(ArgumentSpec(name="part", kind=kind, required=True),),
            ),
        )

    def operations(self) -> tuple[OperationSpec, ...]:
        return self._ops

    def offered(self, view: WorkflowView, actor: Any) -> tuple[str, ...]:
        return ("thing.drop_part",)


def _unused(self: object, *args: object) -> None:
    raise NotImplementedError  # registration needs the member; these tests never call it


for _member in REQUIRED_MEMBERS:  # the members registration checks and these tests never call
    if not hasattr(_Bare, _member):
        setattr(_Bare, _member, _unused)


def test_a_part_argument_needs_a_workflow_that_resolves_parts_from_words() -> None:
    with pytest.raises(RegistryError, match="find_parts"):
        WorkflowRegistry([_Bare(ArgumentKind.PART)])  # type: ignore[list-item]
    WorkflowRegistry([_Bare(ArgumentKind.TEXT)])  # type: ignore[list-item]


def test_without_the_hook_a_view_with_an_outcome_is_terminal() -> None:
    registry = WorkflowRegistry([_Bare(ArgumentKind.TEXT)])  # type: ignore[list-item]
    erased = registry.workflow("thing")
    open_view = WorkflowView(workflow="thing", version="thing/1", phase="open")
    done = WorkflowView(
        workflow="thing", version="thing/1", phase="done", outcome=Outcome(code="done")
    )
    absent = WorkflowView(workflow="thing", version="thing/1", phase="new", exists=False)
    assert not erased.terminal(open_view) and erased.terminal(done) and not erased.terminal(absent)
    assert erased.fits(open_view, None, "thing.drop_part")  # type: ignore[arg-type]
    assert not erased.fits(done, None, "thing.drop_part")  # type: ignore[arg-type]


def test_the_travel_workflows_declare_their_terminal_phases() -> None:
    registry = travel_application().registry
    declared = {
        name: tuple(registry.workflow(name).definition.terminal_phases())  # type: ignore[attr-defined]
        for name in registry.names()
    }
    assert declared == {
        "trip": ("completed", "cancelled"),
        "traveler": ("deleted",),
        "manifest": ("issued", "rejected"),
    }


def test_no_argument_asks_the_model_for_an_internal_id() -> None:
    """The model copies the user's words; an argument taking ids like E1 is a dead end."""
    registry = travel_application().registry
    for name in registry.names():
        erased = registry.workflow(name)
        for op in erased.operations():
            for arg in op.arguments:
                assert not re.search(r"\bE\d\b|\bids?\b", arg.description), (op.key, arg.name)
    trip = registry.workflow("trip")
    kinds = {a.name: a.kind for op in trip.operations() for a in op.arguments}
    assert kinds["extra"] is ArgumentKind.PART


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("the hotel", ["E1"]),
        ("Hotel Avenida", ["E1"]),
        ("o hotel", ["E1"]),
        ("e2", ["E2"]),
        ("the baggage", ["E2", "E3"]),
        ("a bagagem de cabine", ["E3"]),
        ("the extra", ["E1", "E2", "E3"]),
        ("the insurance", []),
    ],
)
def test_trip_parts_are_named_by_words_with_no_guess(words: str, expected: list[str]) -> None:
    trip = TripWorkflow()
    state = TripState(
        name="Lisbon",
        start=date(2026, 5, 12),
        end=date(2026, 5, 15),
        extras=(
            Extra(id="E1", kind="hotel", details="Hotel Avenida", nights=3),
            Extra(id="E2", kind="baggage", details="checked"),
            Extra(id="E3", kind="baggage", details="cabine"),
        ),
        next_extra=4,
    )
    spec = next(op for op in trip.operations() if op.key == "trip.remove_extra")
    argument = spec.arguments[0]
    for locale in ("en", "pt-PT"):
        found = trip.find_parts(state, spec, argument, words, locale)
        if not expected:
            assert not isinstance(found, tuple) and found.code == "no_such_extra"
            continue
        assert isinstance(found, tuple)
        assert [p.id for p in found] == expected
        assert all(p.label for p in found)
