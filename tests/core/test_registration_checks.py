"""Registration checks every workflow, so a turn never meets a missing member (core/registration.py)."""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.errors import RegistryError, UsageError
from turnframe.core.operations import ArgumentKind, ArgumentSpec, OperationSpec
from turnframe.core.registration import OPTIONAL_MEMBERS, REQUIRED_MEMBERS
from turnframe.core.workflow import WorkflowDefinition, WorkflowRegistry
from turnframe.runtime import Application
from turnframe.samples.travel import travel_application


def _trip() -> Any:
    return travel_application().registry.workflow("trip").raw


class _Without:
    """The trip workflow with one member taken away (or replaced)."""

    def __init__(self, inner: Any, member: str, value: Any = None, *, drop: bool = True) -> None:
        self._inner, self._member, self._value, self._drop = inner, member, value, drop

    def __getattr__(self, name: str) -> Any:
        if name == self._member:
            if self._drop:
                raise AttributeError(name)
            return self._value
        return getattr(self._inner, name)


def test_the_required_members_are_the_protocols_less_the_optional_ones() -> None:
    members = {
        n
        for n, v in vars(WorkflowDefinition).items()
        if not n.startswith("_") and (callable(v) or isinstance(v, property))
    }
    assert set(REQUIRED_MEMBERS) == members - OPTIONAL_MEMBERS
    assert OPTIONAL_MEMBERS <= members


@settings(max_examples=40)
@given(st.sampled_from(sorted(REQUIRED_MEMBERS)))
def test_a_missing_required_member_fails_registration_naming_workflow_member_and_fix(
    member: str,
) -> None:
    with pytest.raises(RegistryError) as caught:
        WorkflowRegistry([_Without(_trip(), member)])
    text = str(caught.value)
    assert f"`{member}`" in text
    assert "add " in text
    if member != "name":
        assert "'trip'" in text


def test_the_message_shows_the_signature_to_add() -> None:
    with pytest.raises(
        RegistryError, match=r"workflow 'trip' has no `project` method: add def project"
    ):
        WorkflowRegistry([_Without(_trip(), "project")])


@pytest.mark.parametrize("member", ["render_receipt", "compile", "execute"])
def test_a_member_that_is_not_callable_fails_registration(member: str) -> None:
    with pytest.raises(RegistryError, match="not callable"):
        WorkflowRegistry([_Without(_trip(), member, "oops", drop=False)])


def test_optional_hooks_stay_optional() -> None:
    for member in OPTIONAL_MEMBERS:
        WorkflowRegistry([_Without(_trip(), member)])


def _with_ops(*ops: OperationSpec) -> Any:
    return _Without(_trip(), "operations", lambda: ops, drop=False)


def test_argument_specs_are_checked() -> None:
    dup = OperationSpec(
        key="trip.x",
        workflow="trip",
        summary="X.",
        summaries={"pt-PT": "X."},
        arguments=(ArgumentSpec(name="a"), ArgumentSpec(name="a")),
    )
    with pytest.raises(RegistryError, match="'a' is declared twice"):
        WorkflowRegistry([_with_ops(dup)])
    choice = OperationSpec(
        key="trip.x",
        workflow="trip",
        summary="X.",
        summaries={"pt-PT": "X."},
        arguments=(ArgumentSpec(name="c", kind=ArgumentKind.CHOICE),),
    )
    with pytest.raises(RegistryError, match="lists no choices"):
        WorkflowRegistry([_with_ops(choice)])


def test_a_record_argument_must_name_a_registered_workflow() -> None:
    op = OperationSpec(
        key="trip.x",
        workflow="trip",
        summary="X.",
        summaries={"pt-PT": "X."},
        arguments=(
            ArgumentSpec(
                name="r",
                kind=ArgumentKind.RECORD,
                record_workflow="nope",
                labels={"pt-PT": "r"},
            ),
        ),
    )
    registry = WorkflowRegistry([_with_ops(op)])
    with pytest.raises(RegistryError, match="'nope', which is not registered"):
        Application(name="x", registry=registry)


def test_the_application_checks_its_locales() -> None:
    app = travel_application()
    with pytest.raises(UsageError, match="default_locale 'de'"):
        replace(app, default_locale="de")
    with pytest.raises(RegistryError, match="locale 'de'"):
        replace(app, locales=("en", "de"))


def test_the_registration_problems_hook_is_asked_and_its_problems_fail_registration() -> None:
    asked: list[tuple[str, ...]] = []

    def hook(locales: tuple[str, ...]) -> list[str]:
        asked.append(locales)
        return ["event type 'trip.extra_added' has no receipt template: add one"]

    with pytest.raises(RegistryError, match="workflow 'trip': event type"):
        WorkflowRegistry([_Without(_trip(), "registration_problems", hook, drop=False)])
    assert asked == [tuple(_trip().locales)]


def test_the_travel_sample_registers() -> None:
    app = travel_application()
    assert set(app.registry.names()) >= {"trip"}
    assert inspect.isclass(type(app))
