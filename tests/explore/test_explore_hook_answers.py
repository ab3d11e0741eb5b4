"""Whatever an adopter's ``explore_values`` hook answers, the explorer reports, never crashes.

docs/explorer.md "Argument values": the hook answers ``None`` or a list or tuple of
evaluated values. A slip (a bare string, a number, a ``float``, an object with no JSON
form) used to escape as a ``TypeError`` traceback from deep in the walk, or, for a bare
string, to be read silently as its characters. Now any other answer is a
``DomainRaised`` finding naming the operation and argument; a good answer is explored.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from planted_jobs import JobWorkflow, job_app

from turnframe.core import Amount, CaseRef
from turnframe.testing.explore import DomainRaised, explore

_GOOD = st.one_of(
    st.text(min_size=1, max_size=6),
    st.integers(-5, 5),
    st.decimals(-5, 5, places=2, allow_nan=False, allow_infinity=False),
    st.builds(Amount, value=st.decimals(0, 50, places=2, allow_nan=False, allow_infinity=False)),
    st.dates(min_value=date(2025, 1, 1), max_value=date(2027, 1, 1)),
    st.builds(CaseRef, st.just("job"), st.text("abc", min_size=1, max_size=3)),
)
_BAD_VALUE = st.one_of(
    st.booleans(),
    st.floats(allow_nan=False),
    st.builds(object),
    st.lists(st.integers(), max_size=2),
    st.none(),
)
_GOOD_ANSWER = st.one_of(st.lists(_GOOD, min_size=1, max_size=3), st.tuples(_GOOD), st.just([]))
_BAD_ANSWER = st.one_of(
    st.text(max_size=4),
    st.integers(),
    st.floats(allow_nan=False),
    st.booleans(),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.frozensets(st.integers(), max_size=2),
    st.builds(object),
    st.lists(_GOOD, max_size=2).flatmap(lambda good: _BAD_VALUE.map(lambda bad: [*good, bad])),
)


def _explore_with(answer: Any) -> Any:
    class Hooked(JobWorkflow):
        def explore_values(self, operation: Any, argument: Any) -> Any:
            return answer if argument.name == "title" else None

    return explore(job_app(Hooked), depth=2, states=30)


def _hook_findings(report: Any) -> list[Any]:
    return [
        f for f in report.findings if isinstance(f, DomainRaised) and "explore_values" in str(f)
    ]


@settings(max_examples=60, deadline=None)
@given(answer=_BAD_ANSWER)
def test_a_hook_answer_of_no_use_is_a_finding_naming_the_hook(answer: Any) -> None:
    report = _explore_with(answer)
    found = _hook_findings(report)
    assert len(found) == 1, report.describe_findings()
    assert "explore_values('job.create', 'title')" in str(found[0])
    assert found[0].path and found[0].path[-1].name == "job.create"


@settings(max_examples=40, deadline=None)
@given(answer=_GOOD_ANSWER)
def test_a_good_hook_answer_is_explored_without_a_hook_finding(answer: Any) -> None:
    report = _explore_with(answer)
    assert _hook_findings(report) == []
    if any(isinstance(v, str) and v.strip() for v in answer):
        # a title in words creates a job, so more than the absent state is kept
        assert report.workflows[0].states > 1


def test_a_bare_string_is_not_read_as_its_characters() -> None:
    report = _explore_with("abc")
    assert "answered a str, not a list or tuple" in str(_hook_findings(report)[0])
    assert report.workflows[0].states == 1


def test_a_decimal_title_is_still_a_value() -> None:
    assert _hook_findings(_explore_with((Decimal("1.5"),))) == []


def test_a_projection_that_raises_says_what_it_raised() -> None:
    class RaisesOnFlag(JobWorkflow):
        def obligations(self, state: Any, today: date) -> Any:
            if state.flag == "high":
                raise KeyError("no obligations for high")
            return super().obligations(state, today)

    report = explore(job_app(RaisesOnFlag), depth=3, states=60)
    (found,) = [f for f in report.findings if isinstance(f, DomainRaised)]
    assert "projecting a reached state raised KeyError: 'no obligations for high'" in str(found)
