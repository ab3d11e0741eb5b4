"""Every field type docs/authoring.md#state lists reads back as it was written.

``load_dataclass(cls, to_json_value(state)) == state`` for generated dataclass states whose
fields are drawn from the whole documented list: ``str``, ``int``, ``bool``, ``Decimal``,
``date``, ``CaseRef``, a ``Literal`` of strings, a nested dataclass, ``tuple[X, ...]``,
``X | None`` and ``FrozenMap[K, V]`` / ``Mapping[K, V]`` (keys ``str``, ``CaseRef``,
``date`` or ``int``), nested in one another. A documented type whose loader does not
invert ``to_json_value`` (``CaseRef`` was read as a nested object once, so every kit
state holding a record reference failed to load back and could never commit) fails here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import CaseRef, FrozenMap
from turnframe.core.authoring import load_dataclass
from turnframe.core.canonical import to_json_value

refs = st.builds(
    CaseRef, st.sampled_from(["trip", "traveler"]), st.text("ab1-", min_size=1, max_size=4)
)


@dataclasses.dataclass(frozen=True)
class Inner:
    """A nested dataclass field."""

    who: CaseRef
    when: date | None = None


inners = st.builds(Inner, refs, st.none() | st.dates())

SCALARS: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (str, st.text(max_size=4)),
    (int, st.integers(-(2**70), 2**70)),
    (bool, st.booleans()),
    (Decimal, st.decimals(allow_nan=False, allow_infinity=False, places=2)),
    (date, st.dates()),
    (CaseRef, refs),
    (Literal["x", "y"], st.sampled_from(["x", "y"])),
    (Inner, inners),
]
KEYS: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (str, st.text(max_size=4)),
    (CaseRef, refs),
    (date, st.dates()),
    (int, st.integers(-1000, 1000)),
]


def _wrapped(depth: int) -> st.SearchStrategy[tuple[Any, st.SearchStrategy[Any]]]:
    """A declared type and a strategy of its values, up to ``depth`` containers deep."""
    base = st.sampled_from(SCALARS)
    if depth == 0:
        return base

    def contain(inner: tuple[Any, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
        tp, values = inner
        return st.sampled_from(["tuple", "optional", "frozen_map", "mapping"]).flatmap(
            lambda kind: _container(kind, tp, values)
        )

    return st.one_of(base, _wrapped(depth - 1).flatmap(contain))


def _container(kind: str, tp: Any, values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    if kind == "tuple":
        return st.just((tuple[tp, ...], st.lists(values, max_size=3).map(tuple)))
    if kind == "optional":
        return st.just((tp | None, st.none() | values))

    def keyed(key: tuple[Any, st.SearchStrategy[Any]]) -> tuple[Any, st.SearchStrategy[Any]]:
        key_tp, key_values = key
        declared = FrozenMap[key_tp, tp] if kind == "frozen_map" else Mapping[key_tp, tp]
        return (declared, st.dictionaries(key_values, values, max_size=3).map(FrozenMap))

    return st.sampled_from(KEYS).map(keyed)


@st.composite
def states(draw: st.DrawFn) -> tuple[type, Any]:
    """A generated dataclass type and one of its states."""
    fields = draw(st.lists(_wrapped(2), min_size=1, max_size=4))
    cls = dataclasses.make_dataclass(
        "Generated", [(f"f{n}", tp) for n, (tp, _) in enumerate(fields)], frozen=True
    )
    return cls, cls(*(draw(values) for _, values in fields))


@settings(max_examples=300, deadline=None)
@given(states())
def test_a_state_reads_back_as_it_was_written(drawn: tuple[type, Any]) -> None:
    cls, state = drawn
    loaded = load_dataclass(cls, to_json_value(state))
    assert loaded == state
    assert to_json_value(loaded) == to_json_value(state)
    for name in (f.name for f in dataclasses.fields(cls)):
        assert _kinds(getattr(loaded, name)) == _kinds(getattr(state, name)), name


def _kinds(value: Any) -> Any:
    """The value's shape by exact type (a FrozenMap stays one, a CaseRef stays one)."""
    if isinstance(value, FrozenMap):
        return ("map", tuple((_kinds(k), _kinds(v)) for k, v in value.items()))
    if isinstance(value, tuple):
        return ("tuple", tuple(_kinds(v) for v in value))
    return type(value)


def test_a_reference_field_is_read_from_its_words() -> None:
    @dataclasses.dataclass(frozen=True)
    class Holds:
        trip: CaseRef
        others: tuple[CaseRef, ...] = ()

    state = Holds(CaseRef("trip", "T1"), (CaseRef("traveler", "P1"),))
    assert to_json_value(state) == {"trip": "trip/T1", "others": ["traveler/P1"]}
    assert load_dataclass(Holds, to_json_value(state)) == state


def test_a_map_key_of_the_wrong_form_names_the_field() -> None:
    @dataclasses.dataclass(frozen=True)
    class Counts:
        by_day: FrozenMap[int, int]

    import pytest

    with pytest.raises(ValueError, match=r"Counts.by_day\['03'\]"):
        load_dataclass(Counts, {"by_day": {"03": 1}})
    with pytest.raises(ValueError, match=r"Counts.by_day: expected an object"):
        load_dataclass(Counts, {"by_day": [1]})
