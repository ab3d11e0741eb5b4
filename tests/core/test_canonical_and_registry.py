from __future__ import annotations

from datetime import date

import pytest

from turnframe.core import (
    CaseRef,
    InteractionKind,
    InteractionOption,
    InteractionSpec,
    OptionMeaning,
    RegistryError,
    WorkflowRegistry,
    canonical_json,
    digest,
    origin_is_server_issued,
)
from turnframe.core.commands import DirectUserAct
from turnframe.samples.travel import TravelerWorkflow, TripWorkflow


def test_canonical_json_is_order_independent_and_typed() -> None:
    a = {"b": 1, "a": [date(2026, 5, 1), CaseRef("trip", "t1")], "s": frozenset({"y", "x"})}
    b = {"s": frozenset({"x", "y"}), "a": [date(2026, 5, 1), CaseRef("trip", "t1")], "b": 1}
    assert canonical_json(a) == canonical_json(b)
    assert canonical_json(a) == '{"a":["2026-05-01","trip/t1"],"b":1,"s":["x","y"]}'
    assert digest(a) == digest(b) and len(digest(a)) == 64


def test_canonical_json_refuses_values_without_json_form() -> None:
    with pytest.raises(TypeError):
        canonical_json({"x": object()})


def test_payload_hash_changes_with_any_option() -> None:
    def spec(label: str) -> InteractionSpec:
        return InteractionSpec(
            kind=InteractionKind.CONFIRM,
            case=CaseRef("trip", "t1"),
            prompt="Confirm?",
            options=(InteractionOption(id="confirm", label=label, meaning=OptionMeaning.CONFIRM),),
            bound_revision=3,
        )

    assert spec("Yes").payload_hash() == spec("Yes").payload_hash()
    assert spec("Yes").payload_hash() != spec("Sure").payload_hash()


def test_registry_refuses_duplicates_and_unknown_names() -> None:
    registry = WorkflowRegistry([TripWorkflow(), TravelerWorkflow()])
    assert registry.names() == ("trip", "traveler")
    assert registry.operation("trip.add_extra") is not None
    assert registry.operation("trip.teleport") is None
    with pytest.raises(RegistryError):
        registry.register(TripWorkflow())
    with pytest.raises(RegistryError):
        registry.workflow("boat")


def test_unknown_command_gets_the_conservative_policy() -> None:
    registry = WorkflowRegistry([TripWorkflow()])

    class Teleport:
        operation = "trip.teleport"

        def to_json(self) -> dict[str, object]:
            return {}

    policy = registry.workflow("trip").policy(None, Teleport())  # type: ignore[arg-type]
    assert policy.needs_card and policy.risk.high


def test_only_the_four_server_origins_are_server_issued() -> None:
    assert origin_is_server_issued(DirectUserAct(turn_id="t"))

    class ModelSaidSo:
        kind = "model_proposal"

    assert not origin_is_server_issued(ModelSaidSo())
