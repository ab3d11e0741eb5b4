"""A choice is read without case and given back as the domain declared it (runtime/values.py).

The class of defect: a domain declares ``"EUR"`` and the user's words ``"eur"`` (or
``"EUR"``) never match, while registration accepted the declaration. Generated: declared
choices in any case, words naming one of them in any case.
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from turnframe.core import ArgumentKind, ArgumentSpec, OperationSpec
from turnframe.core.registration import operation_problems
from turnframe.runtime.values import InvalidValue, evaluate_argument

WORDS = st.text(alphabet="abcdefgXYZ", min_size=1, max_size=6)


def _recase(text: str, flips: list[bool]) -> str:
    return "".join(
        c.upper() if flip else c.lower()
        for c, flip in zip(text, flips + [False] * len(text), strict=False)
    )


@given(
    choices=st.lists(WORDS, min_size=1, max_size=5, unique_by=str.casefold),
    pick=st.integers(min_value=0, max_value=4),
    flips=st.lists(st.booleans(), max_size=6),
)
def test_words_in_any_case_name_the_declared_choice(
    choices: list[str], pick: int, flips: list[bool]
) -> None:
    spec = ArgumentSpec(name="currency", kind=ArgumentKind.CHOICE, choices=tuple(choices))
    wanted = choices[pick % len(choices)]
    words = _recase(wanted, flips)
    assert evaluate_argument(spec, words, date(2026, 5, 1)) == wanted


@given(choices=st.lists(WORDS, min_size=1, max_size=5, unique_by=str.casefold), other=WORDS)
def test_words_naming_no_choice_are_refused(choices: list[str], other: str) -> None:
    spec = ArgumentSpec(name="currency", kind=ArgumentKind.CHOICE, choices=tuple(choices))
    if other.casefold() in {c.casefold() for c in choices}:
        return
    with pytest.raises(InvalidValue):
        evaluate_argument(spec, other, date(2026, 5, 1))


def test_registration_refuses_choices_that_differ_only_in_case() -> None:
    op = OperationSpec(
        key="shop.pay",
        workflow="shop",
        summary="Pay.",
        arguments=(
            ArgumentSpec(name="currency", kind=ArgumentKind.CHOICE, choices=("EUR", "eur")),
        ),
    )
    problems = operation_problems("shop", (op,))
    assert any("'EUR' and 'eur'" in p for p in problems), problems
