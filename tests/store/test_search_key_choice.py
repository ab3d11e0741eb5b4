"""Which key SQLite's word index counts first (turnframe.store._sqlite_search._likely_rare).

Only the cost depends on it, never an answer (the conformance suite's full-scan
property checks the answers): the key of the rarest letters is counted first, so a
mention whose first key is common ("ing" of "spring") needs no second counting
statement.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from turnframe.store._sqlite_search import _likely_rare
from turnframe.store.search import query_keys


def test_rare_letters_are_counted_first() -> None:
    assert _likely_rare(query_keys(("spring",))) == "spr"
    assert _likely_rare(query_keys(("company",))) == "omp"
    assert _likely_rare(query_keys(("zq17x",))) == "zq1"
    assert _likely_rare(("eee", "ee,")) == "ee,"  # punctuation is rare in search text


@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4))
def test_the_first_key_is_one_of_the_mentions_keys(words: list[str]) -> None:
    keys = query_keys(tuple(words))
    if keys:
        assert _likely_rare(keys) in keys
