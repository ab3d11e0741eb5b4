"""The per-dimension comparison is exact: what it reports turns one side into the other."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from turnframe.eval.shadow_diff import DIMENSIONS, plan_differences

ITEMS = st.dictionaries(
    st.sampled_from(["operation", "case", "status", "code"]),
    st.one_of(st.none(), st.sampled_from(["a", "b", "trip/t1", "ready"]), st.integers(0, 2)),
    max_size=3,
)
SIDES = st.fixed_dictionaries({d: st.lists(ITEMS, max_size=5) for d in DIMENSIONS})


def _counted(items: list[Any]) -> Counter[str]:
    return Counter(json.dumps(i, sort_keys=True) for i in items)


@given(SIDES, SIDES)
def test_removing_and_adding_the_reported_items_gives_the_other_side(a: Any, b: Any) -> None:
    diff = plan_differences(a, b)
    for dim in DIMENSIONS:
        removed = _counted([d.item for d in diff if d.dimension == dim and d.change == "removed"])
        added = _counted([d.item for d in diff if d.dimension == dim and d.change == "added"])
        assert _counted(a[dim]) - removed + added == _counted(b[dim])
        # Nothing is reported both removed and added: only what truly differs.
        assert not removed & added
    assert (diff == []) == all(_counted(a[d]) == _counted(b[d]) for d in DIMENSIONS)


@given(SIDES, SIDES)
def test_the_comparison_is_symmetric_and_ignores_order(a: Any, b: Any) -> None:
    flipped = {"removed": "added", "added": "removed"}
    there = {
        (d.dimension, flipped[d.change], json.dumps(d.item, sort_keys=True))
        for d in plan_differences(a, b)
    }
    back = {
        (d.dimension, d.change, json.dumps(d.item, sort_keys=True)) for d in plan_differences(b, a)
    }
    assert there == back
    reordered = {d: list(reversed(v)) for d, v in a.items()}
    assert plan_differences(a, reordered) == []
