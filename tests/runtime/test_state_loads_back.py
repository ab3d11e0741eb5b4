"""A command that makes a state its workflow cannot load back is refused before the commit.

The store-backed executor's ``apply`` (:func:`turnframe.runtime.apply_commands`) loads
the new state's JSON back with the workflow's ``load_state``: an ``execute`` that writes
a value of the wrong type (an ``int`` into a ``str`` field) fails the turn with
:class:`~turnframe.runtime.StateDoesNotLoad`, and the record keeps its revision and
stays loadable (docs/invariants.md, I11).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest
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
ACTOR = Actor(account="acme", user="agent1", roles=frozenset({"agent"}))


@pytest.fixture(scope="module", autouse=True)
def _helpdesk() -> Iterator[None]:
    """Import the helpdesk example from its source for this module's tests, then forget it.

    sys.path and sys.modules are restored afterwards, so no other test sees a
    ``helpdesk`` module (``turnframe new helpdesk`` would refuse the name).
    """
    sys.path.insert(0, str(HELPDESK))
    try:
        HELPDESK_MODULES["commands"] = importlib.import_module("helpdesk.commands")
        HELPDESK_MODULES["workflow"] = importlib.import_module("helpdesk.workflow")
        yield
    finally:
        sys.path.remove(str(HELPDESK))
        HELPDESK_MODULES.clear()
        for name in [m for m in sys.modules if m.partition(".")[0] == "helpdesk"]:
            del sys.modules[name]


HELPDESK_MODULES: dict[str, Any] = {}


def _poisoning(field: str, bad: Any) -> Any:
    """The helpdesk's tickets, except that a comment ``poison`` writes ``bad`` into ``field``."""
    comment = HELPDESK_MODULES["commands"].Comment
    base: Any = HELPDESK_MODULES["workflow"].TicketWorkflow

    class PoisoningTickets(base):  # type: ignore[misc, valid-type]
        def execute(self, state: Any, command: Any, ctx: Any) -> Any:
            if isinstance(command, comment) and command.text == "poison":
                return self.emit(replace(state, **{field: bad}), command)
            return super().execute(state, command, ctx)

    return PoisoningTickets()


async def _comment(field: str, bad: Any, text: str) -> tuple[Any, InMemoryStore, Any]:
    app = Application(name="poison", registry=WorkflowRegistry([_poisoning(field, bad)]))
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
        _poisoning(field, bad).load_state(dict(row.state))  # still loadable

    anyio.run(main)
