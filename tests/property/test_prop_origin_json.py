"""The policy step encodes each origin object once, and its JSON is the fresh encoding.

``steps.policy._origin_json`` keeps, for one call of ``apply_policy``, the JSON of each
origin object it encoded. For generated envelopes whose origins are one shared object,
equal copies or other origins (another turn's, another kind), interleaved, every answer
equals ``to_json_value`` of that envelope's own origin; a memo keyed by less than the
object (its kind, its type) serves another origin's JSON, and the request hash of the
commit would then not be the hash of what it carries (I13). This fails then.
"""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.canonical import to_json_value
from turnframe.core.commands import DirectUserAct, PolicyDecision
from turnframe.runtime.steps.policy import _origin_json

origins = st.one_of(
    st.builds(DirectUserAct, turn_id=st.sampled_from(["t1", "t2", "t3"])),
    st.builds(PolicyDecision, rule=st.sampled_from(["r1", "r2"])),
)


@settings(max_examples=150, deadline=None)
@given(
    pool=st.lists(origins, min_size=1, max_size=4),
    picks=st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=10),
)
def test_each_origin_is_encoded_as_itself(
    pool: list[object], picks: list[tuple[int, bool]]
) -> None:
    seen: dict[int, tuple[object, object]] = {}
    for index, fresh_copy in picks:
        origin = pool[index % len(pool)]
        if fresh_copy:
            origin = copy.copy(origin)
        assert _origin_json(origin, seen) == to_json_value(origin)
