"""``turnframe.core.ids.case_ref``: one shared, equal instance per pair."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from turnframe.core.ids import CaseRef, case_ref


@given(st.text(max_size=8), st.text(max_size=8))
def test_an_interned_reference_is_the_plain_one_shared(workflow: str, case_id: str) -> None:
    ref = case_ref(workflow, case_id)
    plain = CaseRef(workflow, case_id)
    assert ref == plain and hash(ref) == hash(plain)
    assert case_ref(workflow, case_id) is ref
    assert pickle.loads(pickle.dumps(ref)) == plain
