"""A state loader built once per declared type answers as a freshly built one.

``load_dataclass`` keeps one built loader per declared type
(``state_json._loader``, keyed by the type as written). For generated dataclass states,
loaded interleaved with another class of the same name and the same field names but
other field types (among them unions of the same members in the other order, which
``==`` calls equal though the loader tries them in order), every answer (the typed state, or the ``ValueError`` and its message
for a value of the wrong type) equals that of a loader built fresh for the call. A cache
keyed by anything less than the type as written (its name, its field names, the type
itself under ``==``) serves one class's loader for the other and fails here (docs/authoring.md#state).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.authoring import load_dataclass, state_json
from turnframe.core.canonical import to_json_value

KINDS: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    "str": (str, st.text("ab", max_size=3)),
    "int": (int, st.integers(-3, 3)),
    "decimal": (Decimal, st.decimals(allow_nan=False, allow_infinity=False, places=1)),
    "bool": (bool, st.booleans()),
    "date": (date, st.dates()),
    "choice": (Literal["x", "y"], st.sampled_from(["x", "y"])),
    "ints": (tuple[int, ...], st.lists(st.integers(0, 3), max_size=3).map(tuple)),
    "maybe_int": (int | None, st.none() | st.integers(0, 3)),
    "maybe_date": (date | None, st.none() | st.dates()),
    # Unions ``==`` calls equal in either order, tried in order by the loader: a date's
    # words load as a date in the first, as words in the second.
    "date_or_words": (date | str, st.dates()),
    "words_or_date": (str | date, st.text("ab", max_size=3)),
    "dates_or_words": (tuple[date | str, ...], st.lists(st.dates(), max_size=2).map(tuple)),
    "words_or_dates": (
        tuple[str | date, ...],
        st.lists(st.text("ab", max_size=3), max_size=2).map(tuple),
    ),
}
ODD = st.sampled_from([7, "7", None, True, 1.5, ["a"], {"k": 1}, "2026-13-40", "x", "NaN"])
NAMES = st.sampled_from(["a", "b", "c", "d"])


def _outcome(load: Any, value: Any) -> tuple[str, Any]:
    try:
        return ("ok", load(value))
    except ValueError as exc:
        return ("error", str(exc))


def _same(left: Any, right: Any) -> bool:
    """Whether two JSON values are equal by type as well as value (``0`` is not ``False``)."""
    return json.dumps(left, sort_keys=True, default=repr) == json.dumps(
        right, sort_keys=True, default=repr
    )


def _fresh(cls: type) -> Any:
    """Load with loaders built for this call only (the cache bypassed at every level)."""
    built = state_json._build_loader

    def load(value: Any) -> Any:
        saved = state_json._loader
        state_json._loader = built  # type: ignore[assignment]
        try:
            return built(cls)(value, cls.__name__)
        finally:
            state_json._loader = saved

    return load


@settings(max_examples=150, deadline=None)
@given(
    names=st.lists(NAMES, min_size=1, max_size=4, unique=True),
    data=st.data(),
)
def test_the_loader_kept_for_a_type_answers_as_a_fresh_one(names: list[str], data: Any) -> None:
    first = [(n, data.draw(st.sampled_from(sorted(KINDS)))) for n in names]
    second = [(n, data.draw(st.sampled_from(sorted(KINDS)))) for n in names]
    a = dataclasses.make_dataclass("Gen", [(n, KINDS[k][0]) for n, k in first], frozen=True)
    b = dataclasses.make_dataclass("Gen", [(n, KINDS[k][0]) for n, k in second], frozen=True)
    states = {
        a: a(**{n: data.draw(KINDS[k][1]) for n, k in first}),
        b: b(**{n: data.draw(KINDS[k][1]) for n, k in second}),
    }
    dumped = {cls: to_json_value(state) for cls, state in states.items()}
    for _ in range(data.draw(st.integers(1, 4))):
        cls = data.draw(st.sampled_from([a, b]))
        source = data.draw(st.sampled_from([a, b]))
        value: Any = dict(dumped[source])  # type: ignore[arg-type]
        if data.draw(st.booleans()):
            value[data.draw(st.sampled_from(names))] = data.draw(ODD)
        if data.draw(st.booleans()):
            value.pop(data.draw(st.sampled_from(names)), None)
        kept = _outcome(lambda v, c=cls: load_dataclass(c, v), value)
        assert kept == _outcome(_fresh(cls), value)
        if kept[0] == "ok":
            assert type(kept[1]) is cls
        if _same(value, dumped[cls]):
            assert kept == ("ok", states[cls])


def test_a_value_equal_only_across_types_is_not_the_state() -> None:
    """``{"a": 0}`` equals ``{"a": False}`` in Python but is not a bool field's state."""
    cls = dataclasses.make_dataclass("Gen", [("a", bool)], frozen=True)
    assert not _same({"a": 0}, {"a": False})
    assert _outcome(lambda v: load_dataclass(cls, v), {"a": 0}) == _outcome(_fresh(cls), {"a": 0})
    assert _outcome(lambda v: load_dataclass(cls, v), {"a": 0})[0] == "error"
