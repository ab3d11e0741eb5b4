"""The authoring kit's declarations hold together, for generated commands and tables.

- A command class generated from random typed fields derives one ``ArgumentSpec`` per
  field (name, kind from the type, required from the default, labels from ``arg``) and
  ``from_values`` rebuilds it from evaluated values of those kinds; a missing required
  value is refused naming that field (docs/authoring.md#commands).
- A workflow generated with random declared event types, receipt templates and silent
  types reports, in ``registration_problems``, exactly each event without a template,
  each template of no event and each event both silent and templated; a workflow whose
  tables agree reports none (docs/authoring.md#registration).
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Amount,
    ArgumentKind,
    CaseRef,
    Email,
    Execution,
    Op,
    Part,
    Refused,
    TypedCommand,
    Workflow,
    arg,
)

KINDS: dict[str, tuple[Any, ArgumentKind, st.SearchStrategy[Any]]] = {
    "str": (
        str,
        ArgumentKind.TEXT,
        st.text("abc xyz", min_size=1).filter(str.strip).map(str.strip),
    ),
    "email": (Email, ArgumentKind.EMAIL, st.just("a@b.pt")),
    "part": (Part, ArgumentKind.PART, st.sampled_from(["E1", "E2"])),
    "int": (int, ArgumentKind.INTEGER, st.integers(-5, 5)),
    "decimal": (
        Decimal,
        ArgumentKind.NUMBER,
        st.decimals(allow_nan=False, allow_infinity=False, places=2),
    ),
    "amount": (
        Amount,
        ArgumentKind.AMOUNT,
        st.builds(Amount, value=st.just(Decimal("1.50")), currency=st.just("EUR")),
    ),
    "date": (date, ArgumentKind.DATE, st.dates()),
    "record": (CaseRef, ArgumentKind.RECORD, st.just(CaseRef("user", "u1"))),
    "choice": (Literal["x", "y"], ArgumentKind.CHOICE, st.sampled_from(["x", "y"])),
}

NAMES = st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name) and not keyword.issoftkeyword(name)
)
"""Field names: identifiers a dataclass accepts and a reader can use (no keyword such as ``as``)."""


@st.composite
def command_fields(draw: st.DrawFn) -> list[tuple[str, str, bool, str]]:
    names = draw(st.lists(NAMES, min_size=0, max_size=6, unique=True))
    return [
        (
            name,
            draw(st.sampled_from(sorted(KINDS))),
            draw(st.booleans()),
            draw(st.sampled_from(["", "Rótulo"])),
        )
        for name in names
    ]


def make_command(fields: list[tuple[str, str, bool, str]]) -> type[TypedCommand]:
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__annotations__": annotations, "__module__": __name__}
    for name, kind, optional, pt_label in fields:
        tp = KINDS[kind][0]
        annotations[name] = tp | None if optional else tp
        labels = {"pt-PT": pt_label} if pt_label else {}
        workflow = "user" if kind == "record" else None
        namespace[name] = (
            arg(None, labels=labels, workflow=workflow)
            if optional
            else arg(labels=labels, workflow=workflow)
        )
    return type("Generated", (TypedCommand,), namespace, operation="gen.do", event="gen.done")


@settings(max_examples=80, deadline=None)
@given(fields=command_fields(), data=st.data())
def test_argument_specs_round_trip_through_the_fields(fields, data) -> None:
    command = make_command(fields)
    specs = command.arguments()
    assert [s.name for s in specs] == [f[0] for f in fields]
    for spec, (name, kind, optional, pt_label) in zip(specs, fields, strict=True):
        assert spec.kind is KINDS[kind][1]
        assert spec.required is (not optional)
        assert spec.label_in("pt-PT") == (pt_label or name.replace("_", " "))
        if kind == "choice":
            assert spec.choices == ("x", "y")
        if kind == "record":
            assert spec.record_workflow == "user"
    values = {
        name: data.draw(KINDS[kind][2])
        for name, kind, optional, _ in fields
        if not optional or data.draw(st.booleans())
    }
    built = command.from_values(values)
    for name in (f[0] for f in fields):
        assert getattr(built, name) == values.get(name)
    required = [f[0] for f in fields if not f[2]]
    if required:
        dropped = data.draw(st.sampled_from(required))
        with pytest.raises(Refused) as refused:
            command.from_values({k: v for k, v in values.items() if k != dropped})
        assert refused.value.code == "missing_argument"
        assert refused.value.params == {"argument": dropped}


@dataclass(frozen=True, slots=True, kw_only=True)
class Thing:
    status: str = "open"


EVENTS = st.lists(
    st.from_regex(r"gen\.[a-z]{1,5}", fullmatch=True), min_size=1, max_size=5, unique=True
)


@settings(max_examples=80, deadline=None)
@given(events=EVENTS, extra=EVENTS, data=st.data())
def test_registration_names_every_receipt_mismatch(events, extra, data) -> None:
    templated = set(data.draw(st.lists(st.sampled_from(events + extra), unique=True)))
    silent = set(data.draw(st.lists(st.sampled_from(events), unique=True)))

    class Do(TypedCommand, operation="gen.do", events=tuple(events)):
        pass

    class Gen(Workflow[Thing]):
        name = "gen"
        version = "gen/1"
        state_type = Thing
        table = (Op(Do, "Do it."),)
        offers = {"open": ("gen.do",)}
        receipts = {"en": {event: f"Did {event}." for event in sorted(templated)}}

        def execute(self, state, command, ctx) -> Execution[Thing]:
            return self.unchanged(state)

    Gen.silent = tuple(sorted(silent))
    problems = set(Gen().registration_problems(("en",)))
    where = "workflow 'gen', receipts['en']"
    expected = {
        f"{where}: no template for event {e!r}; fix: add receipts['en'][{e!r}] or list {e!r} in silent"
        for e in set(events) - silent - templated
    }
    expected |= {
        f"{where}[{e!r}]: no command emits this event type; "
        "fix: correct the event type or declare it on a command"
        for e in templated - set(events)
    }
    expected |= {
        f"{where}[{e!r}]: the event is also silent; fix: keep one" for e in templated & silent
    }
    assert problems == expected


WRONG: dict[str, Any] = {
    "str": 7,
    "email": 7,
    "part": 7,
    "int": "seven",
    "decimal": "seven",
    "amount": 7,
    "date": "2026-05-04",
    "record": CaseRef("other", "o1"),
    "choice": "z",
}


@settings(max_examples=60, deadline=None)
@given(fields=command_fields().filter(bool), data=st.data())
def test_a_value_of_another_kind_is_refused_naming_its_field(fields, data) -> None:
    command = make_command(fields)
    values = {name: data.draw(KINDS[kind][2]) for name, kind, _, _ in fields}
    name, kind, _, _ = data.draw(st.sampled_from(fields))
    values[name] = WRONG[kind]
    with pytest.raises(Refused) as refused:
        command.from_values(values)
    assert (refused.value.code, refused.value.params) == ("invalid_value", {"argument": name})
