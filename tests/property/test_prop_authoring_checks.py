"""The kit's registration checks and state loading, for generated declarations.

- Offers: for a generated ``Literal`` phase field and offers keys drawn from its phases,
  ``new_phase`` and other words, ``registration_problems`` names exactly each key that
  is not a phase (docs/authoring.md#phases).
- Receipts: for generated state fields, command fields, ``payload_fields`` and templates
  over names drawn from those and others, it names exactly each placeholder that neither
  the state, ``label`` nor the payload holds (docs/authoring.md#receipts).
- State: a generated dataclass of the simple field types loads back what it dumped, and a
  value of another type in any one field is a ``ValueError`` naming that field
  (docs/authoring.md#state).
"""

from __future__ import annotations

import dataclasses
import keyword
from datetime import date
from decimal import Decimal
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import Execution, Op, TypedCommand, Workflow
from turnframe.core.authoring import load_dataclass
from turnframe.core.canonical import to_json_value

WORDS = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True).filter(
    lambda word: not keyword.iskeyword(word) and not keyword.issoftkeyword(word)
)


def offers_problems(problems: list[str]) -> set[str]:
    return {
        p.split(":")[0].removeprefix("workflow 'gen', ") for p in problems if "is not a phase" in p
    }


@settings(max_examples=80, deadline=None)
@given(
    phases=st.lists(WORDS, min_size=1, max_size=5, unique=True),
    others=st.lists(WORDS, max_size=4, unique=True),
    data=st.data(),
)
def test_every_offers_key_outside_the_phases_is_named(phases, others, data) -> None:
    phase_type: Any = Literal[tuple(phases)]
    state = dataclasses.make_dataclass(
        "Gen", [("status", phase_type, dataclasses.field(default=phases[0]))], frozen=True
    )
    keys = data.draw(st.lists(st.sampled_from([*phases, "new", *others]), unique=True))

    class Do(TypedCommand, operation="gen.do", event="gen.done"):
        pass

    class Gen(Workflow[Any]):
        name = "gen"
        version = "gen/1"
        state_type = state
        table = (Op(Do, "Do it."),)
        receipts = {"en": {"gen.done": "Done."}}

        def execute(self, state, command, ctx) -> Execution[Any]:
            return self.unchanged(state)

    Gen.offers = {key: ("gen.do",) for key in keys}
    problems = Gen().registration_problems(("en",))
    outside = {k for k in keys if k not in phases and k != "new"}
    assert offers_problems(problems) == {f"offers[{k!r}]" for k in outside}
    for p in problems:
        assert "known: " + ", ".join(dict.fromkeys(["new", *phases])) in p


@settings(max_examples=80, deadline=None)
@given(
    state_fields=st.lists(WORDS, min_size=1, max_size=4, unique=True),
    command_fields=st.lists(WORDS, max_size=3, unique=True),
    extra=st.lists(WORDS, max_size=2, unique=True),
    others=st.lists(WORDS, max_size=3, unique=True),
    data=st.data(),
)
def test_every_placeholder_nothing_provides_is_named(
    state_fields, command_fields, extra, others, data
) -> None:
    state_fields = [f for f in state_fields if f != "status"]
    state = dataclasses.make_dataclass(
        "Gen",
        [(f, str, dataclasses.field(default="")) for f in state_fields]
        + [("status", Literal["open"], dataclasses.field(default="open"))],
        frozen=True,
    )
    namespace: dict[str, Any] = {
        "__annotations__": {f: str for f in command_fields},
        "__module__": __name__,
        **{f: "" for f in command_fields},
    }
    command = type("Do", (TypedCommand,), namespace, operation="gen.do", event="gen.done")
    pool = [*state_fields, "status", "label", *command_fields, *extra, *others]
    names = data.draw(st.lists(st.sampled_from(pool), max_size=5))
    template = " ".join(f"{{{n}}}" for n in names) or "Done."

    class Gen(Workflow[Any]):
        name = "gen"
        version = "gen/1"
        state_type = state
        table = (Op(command, "Do it."),)
        offers = {"open": ("gen.do",)}
        receipts = {"en": {"gen.done": template}}
        payload_fields = {"gen.done": tuple(extra)}

        def execute(self, state, command, ctx) -> Execution[Any]:
            return self.unchanged(state)

    problems = Gen().registration_problems(("en",))
    available = {*state_fields, "status", "label", *command_fields, *extra}
    missing = {n for n in names if n not in available}
    named = {p.split("names {")[1].split("}")[0] for p in problems if "names {" in p}
    assert named == missing
    assert len(problems) == len(missing), problems
    for p in problems:
        assert p.startswith("workflow 'gen', receipts['en']['gen.done']: names {")
        assert "(available: " + ", ".join(sorted(available)) + ")" in p


SIMPLE: dict[str, tuple[Any, st.SearchStrategy[Any], list[Any]]] = {
    "str": (str, st.text(max_size=5), [7, None, True, ["a"]]),
    "int": (int, st.integers(-9, 9), ["7", True, 1.5, None]),
    "decimal": (
        Decimal,
        st.decimals(allow_nan=False, allow_infinity=False, places=2),
        [True, "seven", "NaN", 1.5, None],
    ),
    "bool": (bool, st.booleans(), [1, "true", None]),
    "date": (date, st.dates(), ["2026-13-40", 20260504, None]),
    "choice": (Literal["x", "y"], st.sampled_from(["x", "y"]), ["z", 1, None]),
    "ints": (tuple[int, ...], st.lists(st.integers(0, 3), max_size=3).map(tuple), ["1", [True]]),
    "maybe_int": (int | None, st.none() | st.integers(0, 3), ["1", False]),
    "maybe_date": (date | None, st.none() | st.dates(), ["later", 5]),
}


@settings(max_examples=100, deadline=None)
@given(
    fields=st.lists(
        st.tuples(WORDS, st.sampled_from(sorted(SIMPLE))),
        min_size=1,
        max_size=6,
        unique_by=lambda f: f[0],
    ),
    data=st.data(),
)
def test_a_value_of_another_type_is_refused_naming_its_field(fields, data) -> None:
    cls = dataclasses.make_dataclass("Gen", [(n, SIMPLE[k][0]) for n, k in fields], frozen=True)
    state = cls(**{n: data.draw(SIMPLE[k][1]) for n, k in fields})
    dumped = to_json_value(state)
    assert isinstance(dumped, dict)
    assert load_dataclass(cls, dumped) == state
    name, kind = data.draw(st.sampled_from(fields))
    wrong = data.draw(st.sampled_from(SIMPLE[kind][2]))
    with pytest.raises(ValueError) as caught:
        load_dataclass(cls, {**dumped, name: wrong})
    assert str(caught.value).startswith(f"Gen.{name}"), caught.value
