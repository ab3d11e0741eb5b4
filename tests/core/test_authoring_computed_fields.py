"""A command field marked ``arg(argument=False)`` is computed by the workflow, not an argument.

It is in the command's JSON but derives no ``ArgumentSpec``, ``from_values`` leaves it at its
default, and a hand-written spec may name an argument of the same name that the workflow's
``build`` reads into it (docs/authoring.md#commands). Other mismatches stay problems.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from authoring_fixture import NoteWorkflow

from turnframe.core import (
    ArgumentKind,
    ArgumentSpec,
    Op,
    OperationSpec,
    TypedCommand,
    arg,
)


class Tip(TypedCommand, operation="note.tip", event="note.tipped"):
    reason: str = arg(labels={"pt-PT": "motivo"})
    amount: Decimal = arg(Decimal("0"), argument=False)  # read from an AMOUNT argument
    total: Decimal = arg(Decimal("0"), argument=False)  # from the state


def _spec(*arguments: ArgumentSpec) -> OperationSpec:
    return OperationSpec(
        key="note.tip",
        workflow="note",
        summary="Tip the note.",
        summaries={"pt-PT": "Dar gorjeta à nota."},
        arguments=arguments,
    )


def _argument(name: str, kind: ArgumentKind) -> ArgumentSpec:
    return ArgumentSpec(name=name, kind=kind, required=True, labels={"pt-PT": name})


def _workflow(spec: OperationSpec) -> NoteWorkflow:
    class Tipping(NoteWorkflow):
        table = (*NoteWorkflow.table, Op(Tip, spec.summary, summaries=spec.summaries))
        offers = {**NoteWorkflow.offers, "draft": (*NoteWorkflow.offers["draft"], "note.tip")}
        receipts = {
            locale: {**templates, "note.tipped": "{reason}"}
            for locale, templates in NoteWorkflow.receipts.items()
        }

        def operations(self) -> tuple[OperationSpec, ...]:
            return (*NoteWorkflow().operations(), spec)

    return Tipping()


def test_a_computed_field_is_in_the_json_but_no_argument() -> None:
    assert [a.name for a in Tip.arguments()] == ["reason"]
    tip = Tip.from_values({"reason": " good ", "amount": Decimal("5"), "total": Decimal("9")})
    assert (tip.reason, tip.amount, tip.total) == ("good", Decimal("0"), Decimal("0"))
    built = replace(tip, amount=Decimal("5.00"))
    assert built.to_json() == {"reason": "good", "amount": "5.00", "total": "0"}


def test_a_spec_may_name_an_argument_its_computed_field_is_read_from() -> None:
    spec = _spec(_argument("reason", ArgumentKind.TEXT), _argument("amount", ArgumentKind.AMOUNT))
    assert _workflow(spec).registration_problems(("en", "pt-PT")) == []


def test_other_mismatches_with_the_fields_stay_problems() -> None:
    spec = _spec(_argument("reason", ArgumentKind.NUMBER), _argument("extra", ArgumentKind.TEXT))
    problems = _workflow(spec).registration_problems(("en", "pt-PT"))
    assert any("'extra' exists only in the spec" in p for p in problems), problems
    assert any("arguments[reason]" in p and "spec says number" in p for p in problems), problems
    assert not any("amount" in p or "total" in p for p in problems), problems
