"""The stored plan is JSON of the plan alone, whatever class a workflow's typed state is.

``BatchRequest.typed`` carries the policy step's typed state to re-projection in the same
process (``runtime/steps/reproject.typed_back``); the plan written with phase
``committing`` (``runtime/turn_writes.plan_json``) must not hold it: a typed state is the
domain's own object, which need not serialise at all (``WorkflowDefinition.load_state``
may return any class), and the plan would carry the state twice over. Hypothesis draws
how a hand-written counter workflow types its state (a plain class with slots, one with
a ``__dict__``, a frozen dataclass holding a ``complex``, a plain ``dict``) and how many
turns bump it: every turn commits, each stored plan dumps as JSON with no batch holding
``typed``, and it loads back as the plan recovery resumes (``stored_plan``).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    EventDraft,
    Execution,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
    WorkflowRegistry,
)
from turnframe.runtime import Application, FixedClock, Runtime, SequentialIds
from turnframe.runtime.turn_writes import stored_plan
from turnframe.store import InMemoryStore
from turnframe.store.base import PlanCommit, PlanOutcome
from turnframe.understand import ScriptedUnderstanding

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "explore"))
from test_explore_hand_written import Counter  # noqa: E402

ACTOR = Actor(account="acme", user="u1")


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


class _TypedCounter(Counter):
    """The hand-written counter with its state typed as ``kind`` makes it."""

    def __init__(self, kind: Any) -> None:
        super().__init__(top=100)
        self._kind = kind

    def load_state(self, data: dict[str, Any]) -> Any:
        return self._kind(int(data["n"]))

    def dump_state(self, state: Any) -> dict[str, Any]:
        return {"n": state.n}

    def project(self, state: Any, today: date) -> Any:
        return super().project(None if state is None else {"n": state.n}, today)

    def compile(self, request: Any) -> Any:
        state = request.state
        return super().compile(replace(request, state=None if state is None else {"n": state.n}))

    def execute(self, state: Any, command: Any, ctx: Any) -> Execution[Any]:
        n = 0 if state is None else state.n + 1
        event = EventDraft(type="counter.bumped", data={"n": n}, operation=command.operation)
        return Execution(state=self._kind(n), events=(event,))


class _Recording(InMemoryStore):
    """Keeps every plan ``commit_plan`` is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.plans: list[Any] = []

    async def commit_plan(self, write: PlanCommit) -> PlanOutcome:
        self.plans.append(write.plan)
        return await super().commit_plan(write)


async def _bumps(kind: str, turns: int) -> tuple[list[str], list[Any], Any, _Recording]:
    app = Application(
        name="counter", registry=WorkflowRegistry([_TypedCounter(KINDS[kind])])
    )
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
