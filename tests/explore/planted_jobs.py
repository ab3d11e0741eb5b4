"""Test-only workflows on the authoring kit: a clean ``job`` and one planted defect per finding.

``JobWorkflow`` is clean: ``job.create`` → draft; ``job.start`` → running;
``job.pause`` → paused; ``job.resume`` → running; ``job.finish`` → done; ``job.cancel``
→ cancelled (done and cancelled are terminal); ``job.flag(level)`` sets a flag. A
draft job has the obligations ``start`` (discharged by ``job.start``) and, unflagged,
``flag`` (by ``job.flag``). Each subclass below plants exactly one defect, so a test
can assert that exactly its finding comes back, with the shortest path to it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from typing import Any, Literal

from turnframe.core import (
    BlockingRequirement,
    Command,
    Execution,
    ExecutionContext,
    Obligation,
    Op,
    Outcome,
    TypedCommand,
    Workflow,
    WorkflowRegistry,
    WorkflowView,
    arg,
)
from turnframe.runtime.app import Application

Status = Literal["draft", "running", "paused", "done", "cancelled"]
Level = Literal["low", "high"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Job:
    """A job; ``status`` is its phase."""

    title: str
    status: Status = "draft"
    flag: Level | None = None


class CreateJob(TypedCommand, operation="job.create", event="job.created"):
    """Create a job."""

    title: str = arg(description="the job's title", names_record=True)


class StartJob(TypedCommand, operation="job.start", event="job.started"):
    """Start the job."""


class PauseJob(TypedCommand, operation="job.pause", event="job.paused"):
    """Pause the job."""


class ResumeJob(TypedCommand, operation="job.resume", event="job.resumed"):
    """Resume the job."""


class FinishJob(TypedCommand, operation="job.finish", event="job.finished"):
    """Finish the job."""


class CancelJob(TypedCommand, operation="job.cancel", event="job.cancelled"):
    """Cancel the job."""


class FlagJob(TypedCommand, operation="job.flag", event="job.flagged"):
    """Flag the job."""

    level: Level = arg(description="low or high")


_RECEIPTS = {
    "en": {
        "job.created": "Created job {title}.",
        "job.started": "Started the job.",
        "job.paused": "Paused the job.",
        "job.resumed": "Resumed the job.",
        "job.finished": "Finished the job.",
        "job.cancelled": "Cancelled the job.",
        "job.flagged": "Flagged the job {level}.",
        "job.status_changed": "The job is {status}.",
    }
}

_MOVES: dict[type, Status] = {
    StartJob: "running",
    PauseJob: "paused",
    ResumeJob: "running",
    FinishJob: "done",
    CancelJob: "cancelled",
}


class JobWorkflow(Workflow[Job]):
    """The clean job workflow (no finding)."""

    name = "job"
    version = "job/1"
    state_type = Job
    label_fields = ("title",)
    table = (
        Op(CreateJob, "Create a job.", creates_case=True),
        Op(StartJob, "Start the job."),
        Op(PauseJob, "Pause the job."),
        Op(ResumeJob, "Resume the job."),
        Op(FinishJob, "Finish the job."),
        Op(CancelJob, "Cancel the job."),
        Op(FlagJob, "Flag the job."),
    )
    offers = {
        "new": ("job.create",),
        "draft": ("job.start", "job.cancel", "job.flag"),
        "running": ("job.pause", "job.finish", "job.cancel"),
        "paused": ("job.resume", "job.cancel"),
    }
    terminal = ("done", "cancelled")
    receipts = _RECEIPTS
    extra_events = ("job.status_changed",)

    def obligations(self, state: Job, today: date) -> tuple[Obligation, ...]:
        """A draft job waits to start and, unflagged, to be flagged."""
        found: list[Obligation] = []
        if state.status == "draft":
            found.append(Obligation(id="start", kind="start", waits_for="job.start"))
            if state.flag is None:
                found.append(Obligation(id="flag", kind="flag", waits_for="job.flag"))
        return tuple(found)

    def execute(self, state: Job | None, command: Command, ctx: ExecutionContext) -> Execution[Job]:
        """Apply one command; a flag already set changes nothing."""
        if isinstance(command, CreateJob):
            return self.emit(Job(title=command.title), command)
        job = self.existing(state, command)
        if isinstance(command, FlagJob):
            if job.flag == command.level:
                return self.unchanged(job)
            return self.emit(replace(job, flag=command.level), command)
        return self.emit(replace(job, status=_MOVES[type(command)]), command)


class BlankPhase(JobWorkflow):
    """Planted: a running job's view has a blank phase."""

    def phase_of(self, state: Job) -> str:
        """Running is projected as ``""``."""
        return "" if state.status == "running" else state.status


class TwiceObligation(JobWorkflow):
    """Planted: a draft job lists the obligation id ``start`` twice."""

    def obligations(self, state: Job, today: date) -> tuple[Obligation, ...]:
        """Two obligations share the id ``start``."""
        if state.status != "draft":
            return ()
        return (
            Obligation(id="start", kind="start", waits_for="job.start"),
            Obligation(id="start", kind="review", waits_for="job.flag"),
        )


class UnstableObligation(JobWorkflow):
    """Planted: the ``flag`` obligation's id changes when the job is paused (which does not flag it)."""

    offers = {**JobWorkflow.offers, "draft": ("job.start", "job.cancel", "job.flag", "job.pause")}

    def obligations(self, state: Job, today: date) -> tuple[Obligation, ...]:
        """The flag obligation's id carries the status."""
        if state.status in ("draft", "paused") and state.flag is None:
            return (Obligation(id=f"flag:{state.status}", kind="flag", waits_for="job.flag"),)
        return ()


class FlagIdByLevel(JobWorkflow):
    """Planted: the flag obligation stays open until flagged high, its id naming the level so far.

    The move between the two ids is ``job.flag``, the obligation's own operation, so no
    single move breaks stability; the same obligation has two ids on two states.
    """

    def obligations(self, state: Job, today: date) -> tuple[Obligation, ...]:
        """The flag obligation, open until high, with the current level in its id."""
        if state.status != "draft" or state.flag == "high":
            return ()
        return (Obligation(id=f"flag:{state.flag or 'none'}", kind="flag", waits_for="job.flag"),)


class BlockingWhenDone(JobWorkflow):
    """Planted: a finished job still blocks on a confirmation."""

    def project(self, state: Job | None, today: date) -> WorkflowView:
        """A done job's view blocks."""
        view = super().project(state, today)
        if state is not None and state.status == "done":
            return replace(view, blocking=BlockingRequirement(kind="confirm", reason="finish"))
        return view


class DoneWithoutOutcome(JobWorkflow):
    """Planted: a done job (terminal) has no outcome."""

    def project(self, state: Job | None, today: date) -> WorkflowView:
        """Drop the outcome of a done job."""
        view = super().project(state, today)
        return replace(view, outcome=None) if view.phase == "done" else view


class PausedWithOutcome(JobWorkflow):
    """Planted: a paused job (not terminal) carries an outcome."""

    def project(self, state: Job | None, today: date) -> WorkflowView:
        """Give a paused job an outcome."""
        view = super().project(state, today)
        return replace(view, outcome=Outcome(code="paused")) if view.phase == "paused" else view


class RevivedByCallback(JobWorkflow):
    """Planted: an external report moves a done job back to running."""

    def external_update(self, state: Job, status: str, *, reference: str = "") -> Execution[Job]:
        """A done job may be reported running again (the defect); other reports refused."""
        if state.status != "done" or status != "running":
            raise ValueError(f"no move from {state.status} to {status}")
        new = replace(state, status="running")
        return Execution(
            state=new,
            events=(self.event("job.status_changed", new, status="running"),),
        )

    def event(self, kind: str, state: Job, **data: Any) -> Any:
        """An event outside commands."""
        from turnframe.core import EventDraft

        return EventDraft(type=kind, data={"title": state.title, **data}, operation="job.finish")


class AbsentIsCancelled(JobWorkflow):
    """Planted: the absent state is projected as cancelled with an outcome."""

    def project(self, state: Job | None, today: date) -> WorkflowView:
        """The absent job ends by disappearing."""
        view = super().project(state, today)
        if state is None:
            return replace(view, phase="cancelled", outcome=Outcome(code="cancelled"))
        return view

    offers = {**JobWorkflow.offers, "cancelled": ("job.create",)}


class CancelDrops(JobWorkflow):
    """Planted: ``job.cancel`` answers by dropping the record."""

    def execute(self, state: Job | None, command: Command, ctx: ExecutionContext) -> Execution[Job]:
        """Cancelling returns no state."""
        if isinstance(command, CancelJob):
            dropped: Any = None
            return Execution(
                state=dropped, events=self.emit(self.existing(state, command), command).events
            )
        return super().execute(state, command, ctx)


class PauseIsADeadEnd(JobWorkflow):
    """Planted: a paused job offers nothing and is not terminal."""

    offers = {**JobWorkflow.offers, "paused": ()}


class FlagHighRaises(JobWorkflow):
    """Planted: flagging high raises inside ``execute``."""

    def execute(self, state: Job | None, command: Command, ctx: ExecutionContext) -> Execution[Job]:
        """A high flag raises KeyError."""
        if isinstance(command, FlagJob) and command.level == "high":
            raise KeyError("high")
        return super().execute(state, command, ctx)


class ImpureView(JobWorkflow):
    """Planted: the view of a draft job changes every time it is projected."""

    def __init__(self) -> None:
        self.calls = 0

    def obligations(self, state: Job, today: date) -> tuple[Obligation, ...]:
        """The obligation id counts the calls."""
        self.calls += 1
        if state.status != "draft":
            return ()
        return (Obligation(id=f"start:{self.calls}", kind="start", waits_for="job.start"),)


class ExpiryDrops(JobWorkflow):
    """Planted: a system trigger (time passing) drops a paused job."""

    def expire(self, state: Job, today: date) -> Execution[Job]:
        """A paused job expires by disappearing (the defect); others are refused."""
        if state.status != "paused":
            raise ValueError("only a paused job expires")
        dropped: Any = None
        return Execution(state=dropped, events=(_status_event(state, "expired"),))


class OnlyLowFlags(JobWorkflow):
    """Clean, with its own argument values: the explorer tries ``low`` flags only."""

    def explore_values(self, operation: Any, argument: Any) -> tuple[str, ...] | None:
        """Flags are tried ``low`` only; every other argument by its kind."""
        return ("low",) if argument.name == "level" else None


def _status_event(state: Job, status: str) -> Any:
    from turnframe.core import EventDraft

    return EventDraft(
        type="job.status_changed",
        data={"title": state.title, "status": status},
        operation="job.finish",
    )


PLANTED: tuple[type[JobWorkflow], ...] = (
    BlankPhase,
    TwiceObligation,
    UnstableObligation,
    FlagIdByLevel,
    BlockingWhenDone,
    DoneWithoutOutcome,
    PausedWithOutcome,
    RevivedByCallback,
    AbsentIsCancelled,
    CancelDrops,
    PauseIsADeadEnd,
    FlagHighRaises,
    ImpureView,
    ExpiryDrops,
)


def job_app(workflow: type[JobWorkflow] = JobWorkflow) -> Application:
    """Return an application holding one job workflow of class ``workflow``."""
    return Application(name=f"jobs-{workflow.__name__}", registry=WorkflowRegistry([workflow()]))


def PauseIsADeadEnd_app() -> Application:
    """The application of :class:`PauseIsADeadEnd` (``--app planted_jobs:PauseIsADeadEnd_app``)."""
    return job_app(PauseIsADeadEnd)


def CancelDrops_app() -> Application:
    """The application of :class:`CancelDrops` (``--app planted_jobs:CancelDrops_app``)."""
    return job_app(CancelDrops)
