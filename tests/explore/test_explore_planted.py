"""Planted defects of each kind are caught, each with the shortest path (docs/explorer.md "Findings")."""

from __future__ import annotations

import pytest
from planted_jobs import (
    AbsentIsCancelled,
    BlankPhase,
    BlockingWhenDone,
    CancelDrops,
    DoneWithoutOutcome,
    FlagHighRaises,
    ImpureView,
    JobWorkflow,
    PausedWithOutcome,
    PauseIsADeadEnd,
    RevivedByCallback,
    TwiceObligation,
    UnstableObligation,
    job_app,
)

from turnframe.testing.explore import (
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
    TerminalMovesOn,
    TerminalWithoutOutcome,
    TransitionRemovesCase,
    assert_explores,
    explore,
    format_path,
)

CREATE = 'absent -> job.create(title="Alpha")'

PLANTED = [
    (BlankPhase, NotOnePhase, f"{CREATE} -> job.start()"),
    (TwiceObligation, ObligationIdsNotUnique, CREATE),
    (UnstableObligation, ObligationIdUnstable, f"{CREATE} -> job.pause()"),
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
]


def _of(kind: type[Finding], findings: tuple[Finding, ...]) -> list[Finding]:
    return [f for f in findings if type(f) is kind]


def test_the_clean_job_has_no_finding_and_reaches_every_phase() -> None:
    report = assert_explores(job_app(JobWorkflow))
    (job,) = report.workflows
    assert set(job.phases) == {"new", "draft", "running", "paused", "done", "cancelled"}
    assert job.states == 16 and not job.cut and job.depth_reached == 4


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
