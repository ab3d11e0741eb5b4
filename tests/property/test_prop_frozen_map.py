"""``FrozenMap`` reads as the ``dict`` it was built from and never changes (core/frozen.py).

It is what makes a state with a mapping field memoisable across turns
(docs/adr/0020-what-a-brief-shows.md rule 8), so: every read a ``dict`` answers, it answers
alike; every write a ``dict`` allows, it refuses; equal maps hash alike; ``to_json_value``
and ``canonical_json`` write it as the ``dict``; ``immutable_state`` vouches for it exactly
when its keys and values are immutable.
"""

from __future__ import annotations

import copy
import pickle
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core import CaseRef, FrozenMap, canonical_json, to_json_value
from turnframe.runtime.case_snapshots import immutable_state

keys = st.one_of(st.text(max_size=4), st.integers(-5, 5))
values = st.one_of(
    st.none(), st.integers(), st.text(max_size=5), st.dates(), st.tuples(st.integers())
)
plain = st.dictionaries(keys, values, max_size=8)


@given(plain)
def test_reads_as_the_dict_it_was_built_from(items: dict[object, object]) -> None:
    frozen = FrozenMap(items)
    assert frozen == items and items == frozen
    assert list(frozen) == list(items)
    assert list(frozen.items()) == list(items.items())
    assert len(frozen) == len(items)
    for key in items:
        assert key in frozen and frozen[key] == items[key] and frozen.get(key) == items[key]
    assert "absent-key" not in frozen or "absent-key" in items
    assert frozen.get("absent-key", 7) == items.get("absent-key", 7)
    assert FrozenMap(list(items.items())) == frozen


@given(plain)
def test_building_copies_so_the_source_changing_changes_nothing(
    items: dict[object, object],
) -> None:
    frozen = FrozenMap(items)
    before = dict(items)
    items["added-later"] = 1
    items.clear()
    assert frozen == before
    out = frozen.items_dict()
    out["x"] = 2
    assert frozen == before


@given(plain)
def test_every_write_is_refused(items: dict[object, object]) -> None:
    frozen = FrozenMap(items)
    with pytest.raises(TypeError):
        frozen["k"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        del frozen["k"]  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        frozen._items = {}  # type: ignore[misc]
    with pytest.raises(AttributeError):
        frozen.extra = 1  # type: ignore[attr-defined]
    for method in ("update", "pop", "popitem", "clear", "setdefault"):
        assert not hasattr(frozen, method)
    assert frozen == items


@given(plain, plain)
def test_equal_maps_hash_alike_and_new_maps_leave_the_old(
    a: dict[object, object], b: dict[object, object]
) -> None:
    fa, fb = FrozenMap(a), FrozenMap(b)
    assert (fa == fb) == (a == b)
    if a == b:
        assert hash(fa) == hash(fb)
    assert FrozenMap(reversed(list(a.items()))) == fa
    assert hash(FrozenMap(reversed(list(a.items())))) == hash(fa)
    merged = fa | b
    assert merged == {**a, **b} and fa == a
    assert fa.with_item("new", 1) == {**a, "new": 1} and fa == a
    for key in a:
        assert fa.without(key) == {k: v for k, v in a.items() if k != key} and fa == a
    assert fa.without("absent-key") == a or "absent-key" in a


@given(plain)
def test_pickles_and_copies_to_an_equal_map(items: dict[object, object]) -> None:
    frozen = FrozenMap(items)
    assert pickle.loads(pickle.dumps(frozen)) == frozen
    assert copy.copy(frozen) is frozen
    assert copy.deepcopy(frozen) == frozen


@given(st.dictionaries(st.text(max_size=4), values, max_size=8))
def test_written_as_json_like_the_dict(items: dict[str, object]) -> None:
    frozen = FrozenMap(items)
    assert to_json_value(frozen) == to_json_value(items)
    assert canonical_json(frozen) == canonical_json(items)
    assert canonical_json({"nested": frozen}) == canonical_json({"nested": items})


def test_immutable_exactly_when_keys_and_values_are() -> None:
    born = FrozenMap({CaseRef("traveler", "P1"): date(1990, 1, 2)})
    assert immutable_state(born)
    assert immutable_state(FrozenMap())
    assert not immutable_state(FrozenMap({"k": [1]}))
    assert not immutable_state(FrozenMap({"k": {"inner": 1}}))
    assert not immutable_state(FrozenMap({"k": FrozenMap({"deep": {1, 2}})}))
    assert immutable_state(FrozenMap({"k": FrozenMap({"deep": (1, 2)})}))

    class Looser(FrozenMap[str, int]):  # a subclass may add what cannot be vouched for
        pass

    assert not immutable_state(Looser({"k": 1}))


def test_unhashable_values_make_hash_fail_not_building() -> None:
    frozen = FrozenMap({"k": [1]})
    assert frozen["k"] == [1]
    with pytest.raises(TypeError):
        hash(frozen)


def test_a_manifest_freezes_the_birth_dates_it_is_given() -> None:
    from turnframe.samples.travel.manifest_model import (
        ManifestState,
        dump_manifest,
        load_manifest,
    )

    p1 = CaseRef("traveler", "P1")
    given_dates = {p1: date(2015, 3, 1)}
    state = ManifestState(
        trip=CaseRef("trip", "T1"),
        airline="TP",
        passengers=(p1,),
        passenger_birth_dates=given_dates,
    )
    given_dates.clear()
    assert type(state.passenger_birth_dates) is FrozenMap
    assert state.passenger_birth_dates == {p1: date(2015, 3, 1)}
    assert immutable_state(state)
    again = load_manifest(dump_manifest(state))
    assert again == state and type(again.passenger_birth_dates) is FrozenMap
    assert dump_manifest(again) == dump_manifest(state)
