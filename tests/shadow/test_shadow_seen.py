"""``recorded_seen`` reads a record's ``seen`` pairs as data: well-formed pairs only, never a crash."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from turnframe.core import CaseRef
from turnframe.runtime.replay import recorded_seen

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=10,
)
PAIR = st.tuples(
    st.sampled_from(["trip", "traveler"]), st.sampled_from(["t1", "t2", "p1"]), st.integers(0, 9)
)


@given(JSON)
def test_any_json_reads_without_error(seen: Any) -> None:
    out = recorded_seen({"seen": seen})
    assert all(isinstance(c, CaseRef) and isinstance(r, int) for c, r in out.items())


@given(st.lists(PAIR, max_size=6), st.lists(JSON, max_size=4))
def test_well_formed_pairs_are_read_and_the_rest_left_out(pairs: Any, noise: Any) -> None:
    junk = [n for n in noise if not (isinstance(n, list) and len(n) == 2 and isinstance(n[0], str))]
    seen = [[f"{w}/{c}", r] for w, c, r in pairs] + junk
    expected = {CaseRef(w, c): r for w, c, r in pairs}
    assert recorded_seen({"seen": seen}) == expected
    assert recorded_seen({}) == {} and recorded_seen(None) == {}
