"""Fixtures for the travel sample's tests: workflows and a CompileRequest factory."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

import pytest

from turnframe.core import Actor, ArgValue, CaseRef, Command, CompileRequest, SemanticAct
from turnframe.samples.travel import ManifestWorkflow, TravelerWorkflow, TripWorkflow

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))

RequestFactory = Callable[..., CompileRequest[Any]]


@pytest.fixture
def trip_wf() -> TripWorkflow:
    return TripWorkflow()


@pytest.fixture
def traveler_wf() -> TravelerWorkflow:
    return TravelerWorkflow()


@pytest.fixture
def manifest_wf() -> ManifestWorkflow:
    return ManifestWorkflow()


@pytest.fixture
def make_request() -> RequestFactory:
    """Return ``make(workflow, op_key, state, values=..., prior=..., locale=..., today=...)``."""

    def make(
        workflow: Any,
        op_key: str,
        state: Any,
        values: Mapping[str, ArgValue] | None = None,
        *,
        prior: Sequence[Command] = (),
        locale: str = "en",
        today: date = TODAY,
        case: CaseRef | None = None,
    ) -> CompileRequest[Any]:
        operation = next(op for op in workflow.operations() if op.key == op_key)
        return CompileRequest(
            act=SemanticAct(id="a1", operation=op_key),
            operation=operation,
            case=case or CaseRef(workflow.name, "c1"),
            state=state,
            view=workflow.project(state, today),
            values=dict(values or {}),
            prior=tuple(prior),
            actor=ACTOR,
            today=today,
            locale=locale,
        )

    return make
