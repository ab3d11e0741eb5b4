"""The stored plan is JSON of the plan alone, whatever class a workflow's typed state is.

``BatchRequest.typed`` carries the policy step's typed state to re-projection in the same
process (``runtime/steps/reproject.typed_back``); the plan written with phase
``committing`` (``runtime/turn_writes.plan_json``, handed to the store as its text by
``plan_text``) must not hold it: a typed state is the
domain's own object, which need not serialise at all (``WorkflowDefinition.load_state``
may return any class), and the plan would carry the state twice over. Hypothesis draws
how a hand-written counter workflow types its state (a plain class with slots, one with
a ``__dict__``, a frozen dataclass holding a ``complex``, a plain ``dict``) and how many
turns bump it: every turn commits, each stored plan dumps as JSON with no batch holding
``typed``, and it loads back as the plan recovery resumes (``stored_plan``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CaseRef,
    Compiled,
    CompileRequest,
    EventDraft,
    Execution,
    OperationSpec,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
    WorkflowRegistry,
    WorkflowView,
)
from turnframe.core.commands import CommandPolicy, RiskClass
from turnframe.runtime import Application, FixedClock, Runtime, SequentialIds
from turnframe.runtime.turn_writes import stored_plan
from turnframe.store import InMemoryStore, codec
from turnframe.store.base import PlanCommit, PlanOutcome
from turnframe.understand import ScriptedUnderstanding

ACTOR = Actor(account="acme", user="u1")
LOW = CommandPolicy(risk=RiskClass.LOW)


class _Slotted:
    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Slotted) and other.n == self.n


class _Plain:
    def __init__(self, n: int) -> None:
        self.n = n
        self.seen = object()  # nothing any serialiser knows

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Plain) and other.n == self.n


@dataclass(frozen=True)
class _Complex:
    n: int
    phase: complex = 1j


class _Dict(dict[str, int]):
    @property
    def n(self) -> int:
        return self["n"]


KINDS: dict[str, Any] = {
    "slotted": _Slotted,
    "plain": _Plain,
    "dataclass_complex": lambda n: _Complex(n=n),
    "dict": lambda n: _Dict(n=n),
}


@dataclass(frozen=True)
class _Bump:
    operation: str

    def to_json(self) -> dict[str, Any]:
        return {}


class _TypedCounter:
    """A hand-written counter workflow (no kit) whose state is typed as ``kind`` makes it."""

    name = "counter"
    version = "counter/1"

    def __init__(self, kind: Any) -> None:
        self._kind = kind

    def operations(self) -> tuple[OperationSpec, ...]:
        return (
            OperationSpec(key="counter.create", workflow="counter", summary="Create.",
                          creates_case=True, policy=LOW),
            OperationSpec(key="counter.bump", workflow="counter", summary="Bump.", policy=LOW),
        )  # fmt: skip

    def load_state(self, data: dict[str, Any]) -> Any:
        return self._kind(int(data["n"]))

    def dump_state(self, state: Any) -> dict[str, Any]:
        return {"n": state.n}

    def project(self, state: Any, today: date) -> WorkflowView:
        if state is None:
            return WorkflowView(workflow="counter", version=self.version, phase="new", exists=False)
        return WorkflowView(workflow="counter", version=self.version, phase="counting")

    def offered(self, view: WorkflowView, actor: Actor) -> tuple[str, ...]:
        return ("counter.bump",) if view.phase == "counting" else ()

    def compile(self, request: CompileRequest[Any]) -> Compiled:
        return Compiled(commands=(_Bump(operation=request.operation.key),))

    def policy(self, state: Any, command: Any) -> CommandPolicy:
        return LOW

    def validate(self, state: Any, command: Any, today: date, locale: str = "en") -> None:
        return None

    def execute(self, state: Any, command: Any, ctx: Any) -> Execution[Any]:
        n = 0 if state is None else state.n + 1
        event = EventDraft(type="counter.bumped", data={"n": n}, operation=command.operation)
        return Execution(state=self._kind(n), events=(event,))

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


class _Recording(InMemoryStore):
    """Keeps every plan ``commit_plan`` is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[Any] = []

    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        # The runtime hands the plan over as its text (JSONText): its value is the plan.
        self.plans.append(None if write.plan is None else codec.record_value(write.plan))
        return await super().commit_plan(write)


async def _bumps(kind: str, turns: int) -> tuple[list[str], list[Any], Any, _Recording]:
    app = Application(name="counter", registry=WorkflowRegistry([_TypedCounter(KINDS[kind])]))
    store = _Recording()
    script = ScriptedUnderstanding()
    runtime = Runtime(app, store, script, clock=FixedClock(date(2026, 5, 1)), ids=SequentialIds())
    case = await runtime.seed(ACTOR.account, "counter", {"n": 0}, case_id="k1")
    statuses = []
    for n in range(turns):
        script.push(
            lambda brief: Understanding(
                acts=(
                    SemanticAct(
                        id="a1",
                        operation="counter.bump",
                        target=ProposedTarget(handles=(runtime.handle_for(brief.turn_id, case),)),
                    ),
                )
            )
        )
        result = await runtime.run_turn(ACTOR, "c1", TurnInput(text=f"bump the counter {n}"))
        statuses.extend(r.status.value for r in result.results.values())
    row = await store.load_case(case)
    assert row is not None
    resumed = [await stored_plan(store, plan) for plan in store.plans if plan is not None]
    return statuses, resumed, row.state, store


@settings(max_examples=20, deadline=None)
@given(kind=st.sampled_from(sorted(KINDS)), turns=st.integers(1, 3))
def test_the_stored_plan_holds_json_only_whatever_the_typed_state(kind: str, turns: int) -> None:
    statuses, resumed, state, store = anyio.run(_bumps, kind, turns)
    assert statuses == ["committed"] * turns
    assert state == {"n": turns}
    plans = [p for p in store.plans if p is not None]
    assert len(plans) == turns
    for plan in plans:
        json.dumps(plan)  # JSON all the way down
        assert all("typed" not in batch for batch in plan["batches"])
    assert all(p.batches and p.batches[0].typed is None for p in resumed)
