"""Planted defects of each kind are caught, each with the shortest path (docs/explorer.md "Findings")."""

from __future__ import annotations

from typing import Any

import pytest
from planted_jobs import (
    AbsentIsCancelled,
    BlankPhase,
    BlockingWhenDone,
    CancelDrops,
    DoneWithoutOutcome,
    ExpiryDrops,
    FlagHighRaises,
    FlagIdByLevel,
    ImpureView,
    JobWorkflow,
    OnlyLowFlags,
    PausedWithOutcome,
    PauseIsADeadEnd,
    RevivedByCallback,
    TwiceObligation,
    UnstableObligation,
    job_app,
)

from turnframe.core import JSONObject, UsageError
from turnframe.testing.explore import (
    EXPLORE_TODAY,
    BlockingWithoutUserStep,
    CaseEndsByDisappearing,
    DeadEnd,
    DomainRaised,
    Finding,
    NotOnePhase,
    ObligationIdsNotUnique,
    ObligationIdUnstable,
    OutcomeOutsideTerminal,
    ProjectionNotPure,
    Step,
    TerminalMovesOn,
    TerminalWithoutOutcome,
    TransitionRemovesCase,
    assert_explores,
    explore,
    format_path,
    replay_path,
)
from turnframe.testing.explore.checks import check_moves, check_state, same_obligation_same_id
from turnframe.testing.explore.space import WorkflowSpace, system_triggers

CREATE = 'absent -> job.create(title="Alpha")'

PLANTED = [
    (BlankPhase, NotOnePhase, f"{CREATE} -> job.start()"),
    (TwiceObligation, ObligationIdsNotUnique, CREATE),
    (UnstableObligation, ObligationIdUnstable, f"{CREATE} -> job.pause()"),
    (FlagIdByLevel, ObligationIdUnstable, f'{CREATE} -> job.flag(level="low")'),
    (BlockingWhenDone, BlockingWithoutUserStep, f"{CREATE} -> job.start() -> job.finish()"),
    (DoneWithoutOutcome, TerminalWithoutOutcome, f"{CREATE} -> job.start() -> job.finish()"),
    (PausedWithOutcome, OutcomeOutsideTerminal, f"{CREATE} -> job.start() -> job.pause()"),
    (
        RevivedByCallback,
        TerminalMovesOn,
        f"{CREATE} -> job.start() -> job.finish() -> external 'running'",
    ),
    (AbsentIsCancelled, CaseEndsByDisappearing, "absent"),
    (CancelDrops, TransitionRemovesCase, f"{CREATE} -> job.cancel()"),
    (PauseIsADeadEnd, DeadEnd, f"{CREATE} -> job.start() -> job.pause()"),
    (FlagHighRaises, DomainRaised, f'{CREATE} -> job.flag(level="high")'),
    (ImpureView, ProjectionNotPure, CREATE),
    (
        ExpiryDrops,
        TransitionRemovesCase,
        f"{CREATE} -> job.start() -> job.pause() -> system expire(today=2026-01-15)",
    ),
]


def _of(kind: type[Finding], findings: tuple[Finding, ...]) -> list[Finding]:
    return [f for f in findings if type(f) is kind]


def test_the_clean_job_has_no_finding_and_reaches_every_phase() -> None:
    report = assert_explores(job_app(JobWorkflow))
    (job,) = report.workflows
    assert set(job.phases) == {"new", "draft", "running", "paused", "done", "cancelled"}
    assert job.states == 31 and not job.cut and job.depth_reached == 4


@pytest.mark.parametrize(
    ("workflow", "kind", "path"), PLANTED, ids=lambda v: getattr(v, "__name__", "p")
)
def test_a_planted_defect_is_caught_with_the_shortest_path(
    workflow: type[JobWorkflow], kind: type[Finding], path: str
) -> None:
    report = explore(job_app(workflow))
    found = _of(kind, report.findings)
    assert found, f"{kind.__name__} not found in {[f.kind for f in report.findings]}"
    assert format_path(found[0].path) == path
    # The first finding of each kind is a shortest one: no other of that kind is shorter.
    assert all(len(f.path) >= len(found[0].path) for f in found)


@pytest.mark.parametrize(
    ("workflow", "kind", "path"), PLANTED, ids=lambda v: getattr(v, "__name__", "p")
)
def test_the_clean_job_has_none_of_the_planted_kinds(
    workflow: type[JobWorkflow], kind: type[Finding], path: str
) -> None:
    clean = explore(job_app(JobWorkflow))
    assert not _of(kind, clean.findings)


def test_assert_explores_fails_with_each_finding_and_its_path() -> None:
    with pytest.raises(AssertionError) as failed:
        assert_explores(job_app(PauseIsADeadEnd))
    message = str(failed.value)
    assert "DeadEnd in job: phase 'paused'" in message
    assert f"path: {CREATE} -> job.start() -> job.pause()" in message


def test_a_finding_is_json_with_its_steps() -> None:
    (finding,) = _of(TransitionRemovesCase, explore(job_app(CancelDrops)).findings)
    data = finding.to_json()
    assert data["kind"] == "TransitionRemovesCase"
    assert data["path"] == [
        {"kind": "operation", "name": "job.create", "arguments": {"title": "Alpha"}},
        {"kind": "operation", "name": "job.cancel", "arguments": {}},
    ]


def _kinds_at(space: WorkflowSpace, data: JSONObject | None) -> tuple[set[type], list[Any]]:
    """The finding kinds on the state ``data`` and its moves, and each move's finding kinds."""
    view = space.view(data)
    moves = space.moves(data)
    views = {m.key: space.view(m.target) for m in moves if m.target is not None}
    on_moves = check_moves(space, data, view, moves, views)
    here = {cls for cls, _, _ in check_state(space, data, view)}
    here |= {problem[0] for at, problem in on_moves if at is None}
    return here, [(at.step, problem[0]) for at, problem in on_moves if at is not None]


@pytest.mark.parametrize(
    ("workflow", "kind", "path"), PLANTED, ids=lambda v: getattr(v, "__name__", "p")
)
def test_replaying_the_path_reproduces_the_finding(
    workflow: type[JobWorkflow], kind: type[Finding], path: str
) -> None:
    app = job_app(workflow)
    erased = app.registry.workflow("job")
    finding = _of(kind, explore(app).findings)[0]
    space = WorkflowSpace(erased, today=EXPLORE_TODAY, locale="en")
    # A finding on a state shows at the end of its path; one on a move, as that last move.
    here, _ = _kinds_at(space, replay_path(erased, finding.path))
    if finding.path:
        _, moves = _kinds_at(space, replay_path(erased, finding.path[:-1]))
        here |= {cls for step, cls in moves if step == finding.path[-1]}
    # One obligation under two ids shows along the path's states.
    seen: dict[tuple[str, str], str] = {}
    for end in range(len(finding.path) + 1):
        view = space.view(replay_path(erased, finding.path[:end]))
        here |= {cls for cls, _, _ in same_obligation_same_id(view, seen)}
    assert kind in here


def test_a_path_that_no_longer_fits_is_refused() -> None:
    erased = job_app(JobWorkflow).registry.workflow("job")
    bogus = (Step(kind="operation", name="job.finish", arguments={}),)
    with pytest.raises(UsageError, match=r"step 1 \(job.finish\(\)\) is not a move"):
        replay_path(erased, bogus)
    with pytest.raises(UsageError, match="seed 'J9'"):
        replay_path(erased, (Step(kind="seed", name="J9"),))


def test_a_workflow_supplies_its_own_argument_values() -> None:
    (clean,) = explore(job_app(JobWorkflow)).workflows
    (low,) = assert_explores(job_app(OnlyLowFlags)).workflows
    assert low.states < clean.states  # no high-flagged job is reached


def test_system_triggers_are_the_state_and_today_methods() -> None:
    from turnframe.samples.travel import travel_application

    registry = travel_application().registry
    assert system_triggers(registry.workflow("trip")) == ("complete",)
    assert system_triggers(registry.workflow("manifest")) == ()
    assert system_triggers(job_app(ExpiryDrops).registry.workflow("job")) == ("expire",)
