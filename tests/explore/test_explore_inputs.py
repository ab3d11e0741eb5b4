"""Bad input to the explorer's library API is a typed error that names the fix (docs/explorer.md "Limits")."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from planted_jobs import JobWorkflow, job_app

from turnframe.core import UsageError
from turnframe.testing.explore import (
    MAX_DEPTH,
    MAX_STATES,
    Limits,
    assert_explores,
    explore,
    read_records,
)


@pytest.mark.parametrize(("depth", "states"), [(-1, 10), (1, 0), (True, 10), (1.5, 10), ("3", 10)])
def test_a_bad_limit_is_a_usage_error(depth: object, states: object) -> None:
    with pytest.raises(UsageError, match="must be a whole number"):
        Limits(depth=depth, states=states)  # type: ignore[arg-type]


@given(
    depth=st.integers(min_value=0, max_value=4 * MAX_DEPTH),
    states=st.integers(min_value=1, max_value=4 * MAX_STATES),
)
def test_limits_past_the_ceiling_are_refused_and_those_within_kept(depth: int, states: int) -> None:
    if depth <= MAX_DEPTH and states <= MAX_STATES:
        assert Limits(depth=depth, states=states) == Limits(depth=depth, states=states)
    else:
        with pytest.raises(UsageError, match="must be at most"):
            Limits(depth=depth, states=states)


def test_the_ceiling_is_refused_before_any_walk_by_every_entry_point() -> None:
    assert MAX_DEPTH == 1000 and MAX_STATES == 1_000_000
    Limits(depth=MAX_DEPTH, states=MAX_STATES)
    with pytest.raises(UsageError, match=r"states must be at most 1,000,000"):
        explore(job_app(JobWorkflow), states=100_000_000)
    with pytest.raises(UsageError, match=r"depth must be at most 1,000"):
        assert_explores(job_app(JobWorkflow), depth=MAX_DEPTH + 1)


def test_an_unknown_workflow_names_the_closest() -> None:
    with pytest.raises(UsageError, match="did you mean 'job'"):
        explore(job_app(JobWorkflow), "jobs")
    with pytest.raises(UsageError, match=r"it has: job"):
        explore(job_app(JobWorkflow), "zzz")


def test_records_the_seeder_refuses_are_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot be seeded"):
        explore(job_app(JobWorkflow), records=[{"key": "X", "workflow": "nope", "state": {}}])


def test_a_seed_whose_state_does_not_load_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="cannot be seeded|does not load"):
        explore(
            job_app(JobWorkflow),
            records=[{"key": "J1", "workflow": "job", "state": {"status": 3}}],
        )


def test_depth_zero_checks_the_roots_only() -> None:
    report = explore(
        job_app(JobWorkflow),
        depth=0,
        records=[{"key": "J1", "workflow": "job", "state": {"title": "T", "status": "paused"}}],
    )
    (job,) = report.workflows
    assert job.states == 2 and job.cut and job.depth_reached == 0 and job.seeds == 1


def test_read_records_takes_a_bare_list(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "r.yaml"
    path.write_text("- {key: J1, workflow: job, state: {title: T}}\n", encoding="utf-8")
    assert read_records(path) == [{"key": "J1", "workflow": "job", "state": {"title": "T"}}]
    path.write_text("records: [\n", encoding="utf-8")
    with pytest.raises(UsageError, match="not YAML"):
        read_records(path)
