"""A command that makes a state its workflow cannot load back is refused before the commit.

The store-backed executor's ``apply`` (:func:`turnframe.runtime.apply_commands`) loads
the new state's JSON back with the workflow's ``load_state``: an ``execute`` that writes
a value of the wrong type (an ``int`` into a ``str`` field) fails the turn with
:class:`~turnframe.runtime.StateDoesNotLoad`, and the record keeps its revision and
stays loadable (docs/invariants.md, I11).
"""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
    WorkflowRegistry,
)
from turnframe.core.errors import DomainError
from turnframe.runtime import FixedClock, Runtime, SequentialIds, StateDoesNotLoad
from turnframe.runtime.app import Application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

HELPDESK = Path(__file__).resolve().parents[2] / "examples" / "helpdesk" / "src"
if str(HELPDESK) not in sys.path:
    sys.path.insert(0, str(HELPDESK))

from helpdesk.commands import Comment  # noqa: E402
from helpdesk.workflow import TicketWorkflow  # noqa: E402

ACTOR = Actor(account="acme", user="agent1", roles=frozenset({"agent"}))


class PoisoningTickets(TicketWorkflow):
    """The helpdesk's tickets, except that a comment ``poison`` writes ``bad`` into ``field``."""

    def __init__(self, field: str, bad: Any) -> None:
        super().__init__()
        self.field, self.bad = field, bad

    def execute(self, state: Any, command: Any, ctx: Any) -> Any:
        if isinstance(command, Comment) and command.text == "poison":
            return self.emit(replace(state, **{self.field: self.bad}), command)
        return super().execute(state, command, ctx)


async def _comment(field: str, bad: Any, text: str) -> tuple[Any, InMemoryStore, Any]:
    app = Application(name="poison", registry=WorkflowRegistry([PoisoningTickets(field, bad)]))
    store = InMemoryStore()
    script = ScriptedUnderstanding()
    runtime = Runtime(app, store, script, clock=FixedClock(date(2026, 5, 4)), ids=SequentialIds())
    case = await runtime.seed(ACTOR.account, "ticket", {"title": "VPN down", "requester": "Rui"})

    def read(brief: Any) -> Understanding:
        handle = runtime.handle_for(brief.turn_id, case)
        act = SemanticAct(
            id="a1",
            operation="ticket.comment",
            target=ProposedTarget(handles=(handle,)),
            args={"text": text},
        )
        return Understanding(acts=(act,))

    script.push(read)
    try:
        result: Any = await runtime.run_turn(ACTOR, "c1", TurnInput(text=f"Comment {text}."))
    except DomainError as exc:
        result = exc
    return result, store, case


def test_an_int_in_a_str_field_fails_the_turn_naming_workflow_operation_and_field() -> None:
    async def main() -> None:
        result, store, case = await _comment("requester", 3, "poison")
        assert isinstance(result, StateDoesNotLoad), result
        text = str(result)
        assert "'ticket'" in text and "ticket.comment" in text
        assert "Ticket.requester: 3 is not a str" in text and "nothing was committed" in text
        assert (result.workflow, result.method, result.operation) == (
            "ticket",
            "execute",
            "ticket.comment",
        )
        row = await store.load_case(case)
        assert row is not None and row.revision == 1 and row.state["requester"] == "Rui"
        # The record still loads: the next turn on it commits.
        again, store2, case2 = await _comment("requester", 3, "all good")
        assert not isinstance(again, DomainError)

    anyio.run(main)


_ILL_TYPED = {
    "title": st.integers() | st.booleans() | st.lists(st.integers(), min_size=1),
    "requester": st.integers() | st.floats(allow_nan=False) | st.just(("a", "b")),
    "priority": st.text(max_size=8).filter(lambda s: s not in ("low", "normal", "high", "urgent"))
    | st.integers(),
    "assignee": st.integers() | st.booleans(),
    "comments": st.integers() | st.tuples(st.integers()),
    "status": st.text(max_size=8).filter(lambda s: s not in ("open", "closed")),
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(_ILL_TYPED)).flatmap(lambda f: st.tuples(st.just(f), _ILL_TYPED[f])))
def test_no_ill_typed_state_is_ever_committed(field_and_value: tuple[str, Any]) -> None:
    field, bad = field_and_value

    async def main() -> None:
        result, store, case = await _comment(field, bad, "poison")
        assert isinstance(result, StateDoesNotLoad), (field, bad, result)
        assert f"Ticket.{field}" in str(result)
        row = await store.load_case(case)
        assert row is not None and row.revision == 1
        TicketWorkflow().load_state(dict(row.state))  # still loadable

    anyio.run(main)
