"""A case's own check ids: lower-case words joined by ``_``, nothing else (docs/evals.md).

``re.match`` with ``$`` also matches before a trailing line break, so ``"names_dates\\n"``
used to pass as a check id (and reach the judge's schema and the table as two lines).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core.errors import UsageError
from turnframe.eval.dataset import EvalCase
from turnframe.eval.judge import check_ids

GOOD = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _case(check: str) -> EvalCase:
    return EvalCase.model_validate({"id": "c1", "text": "Hi", "checks": {check: "It holds."}})


@settings(max_examples=300, deadline=None)
@given(
    check=st.one_of(
        st.text(max_size=45),
        st.from_regex(GOOD, fullmatch=True).map(lambda s: s + "\n"),
        st.from_regex(GOOD, fullmatch=True),
    )
)
def test_a_check_id_is_accepted_exactly_when_it_is_lower_case_words(check: str) -> None:
    if GOOD.fullmatch(check):
        assert list(check_ids(_case(check))) == [check]
    else:
        with pytest.raises(UsageError, match="check id"):
            check_ids(_case(check))


@pytest.mark.parametrize("check", ["names_dates\n", "a\n", "ok_\r\n"])
def test_a_trailing_line_break_is_no_check_id(check: str) -> None:
    with pytest.raises(UsageError, match="check id"):
        check_ids(_case(check))
