"""The travel workflows are written on the authoring kit and hold together at registration."""

from __future__ import annotations

import pytest

from turnframe.core import Workflow
from turnframe.samples.travel import ManifestWorkflow, TravelerWorkflow, TripWorkflow
from turnframe.samples.travel.trip_model import TRIP_OPERATIONS, TRIP_TABLE


@pytest.mark.parametrize("workflow", [TripWorkflow(), TravelerWorkflow(), ManifestWorkflow()])
def test_every_travel_workflow_has_no_registration_problem(workflow: Workflow) -> None:
    assert isinstance(workflow, Workflow)
    assert workflow.registration_problems(("en", "pt-PT")) == []


def test_the_trip_specs_agree_with_the_commands_fields() -> None:
    for row, spec in zip(TRIP_TABLE, TRIP_OPERATIONS, strict=True):
        derived = {a.name: (a.kind, a.required) for a in row.command.arguments()}
        assert derived == {a.name: (a.kind, a.required) for a in spec.arguments}, spec.key
