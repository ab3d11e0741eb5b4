"""The explorer needs no authoring kit: a hand-written ``WorkflowDefinition`` (docs/explorer.md "How it moves")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from turnframe.core import (
    Actor,
    CaseRef,
    Compiled,
    CompileRequest,
    EventDraft,
    Execution,
    OperationSpec,
    Outcome,
    Refusal,
    WorkflowRegistry,
    WorkflowView,
)
from turnframe.core.commands import CommandPolicy, RiskClass
from turnframe.runtime.app import Application
from turnframe.testing.explore import DeadEnd, explore, format_path

LOW = CommandPolicy(risk=RiskClass.LOW)


@dataclass(frozen=True)
class Bump:
    """Add one (or create at zero)."""

    operation: str

    def to_json(self) -> dict[str, Any]:
        return {}


class Counter:
    """A counter that fills at ``top``; full is terminal (an outcome, no hook)."""

    name = "counter"
    version = "counter/1"

    def __init__(self, top: int, stuck_at: int | None = None) -> None:
        self.top = top
        self.stuck_at = stuck_at

    def operations(self) -> tuple[OperationSpec, ...]:
        return (
            OperationSpec(key="counter.create", workflow="counter", summary="Create.",
                          creates_case=True, policy=LOW),
            OperationSpec(key="counter.bump", workflow="counter", summary="Bump.", policy=LOW),
        )  # fmt: skip

    def load_state(self, data: dict[str, Any]) -> dict[str, Any]:
        return {"n": int(data["n"])}

    def dump_state(self, state: dict[str, Any]) -> dict[str, Any]:
        return dict(state)

    def project(self, state: Any, today: date) -> WorkflowView:
        if state is None:
            return WorkflowView(workflow="counter", version=self.version, phase="new", exists=False)
        full = state["n"] >= self.top
        return WorkflowView(
            workflow="counter",
            version=self.version,
            phase="full" if full else "counting",
            outcome=Outcome(code="full") if full else None,
        )

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        return ("counter.bump",) if view.phase == "counting" else ()

    def compile(self, request: CompileRequest[Any]) -> Compiled | Refusal:
        state = request.state
        if state is not None and state["n"] == self.stuck_at:
            return Refusal(code="stuck", sentence="It is stuck.")
        return Compiled(commands=(Bump(operation=request.operation.key),))

    def policy(self, state: Any, command: Any) -> CommandPolicy:
        return LOW

    def validate(self, state: Any, command: Any, today: date, locale: str = "en") -> None:
        return None

    def execute(self, state: Any, command: Any, ctx: Any) -> Execution[Any]:
        n = 0 if state is None else state["n"] + 1
        return Execution(
            state={"n": n},
            events=(EventDraft(type="counter.bumped", data={"n": n}, operation=command.operation),),
        )

    def render_receipt(self, event: Any, state: Any, locale: str) -> str | None:
        return "Bumped."

    def candidate_label(self, case: CaseRef, state: Any, locale: str) -> str:
        return "counter"

    def search_text(self, state: Any) -> str:
        return "counter"

    def briefing(self, view: WorkflowView) -> str:
        return "A counter."

    def ask_obligation(self, view: WorkflowView, obligation: Any, locale: str) -> str:
        return "?"

    def ask_argument(self, operation: Any, argument: Any, locale: str) -> str:
        return "?"


def _app(counter: Counter) -> Application:
    return Application(name="counter", registry=WorkflowRegistry([counter]))


def test_a_hand_written_workflow_is_explored_to_its_end() -> None:
    report = explore(_app(Counter(top=3)))
    (counter,) = report.workflows
    assert report.ok, report.describe_findings()
    assert counter.states == 5 and not counter.cut and counter.phases == ("new", "counting", "full")


def test_a_refusing_state_of_a_hand_written_workflow_is_a_dead_end() -> None:
    report = explore(_app(Counter(top=5, stuck_at=1)))
    (finding,) = report.findings
    assert isinstance(finding, DeadEnd)
    assert format_path(finding.path) == "absent -> counter.create() -> counter.bump()"
