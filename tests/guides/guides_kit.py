"""A small scripted world for the guides' tests: the expenses sample on an in-memory store.

Turns run through :class:`turnframe.runtime.Runtime` with a
:class:`turnframe.testing.ScriptedUnderstanding`, as docs/guides/interactions.md and
docs/guides/composition.md show them; every step but understanding is production code.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from turnframe.core import (
    Actor,
    CaseRef,
    Interaction,
    InteractionResponse,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds, TurnResult
from turnframe.samples.expenses import expenses_application
from turnframe.store import InMemoryStore
from turnframe.testing import ScriptedUnderstanding

ANA = Actor(account="acme", user="u1", roles=frozenset({"employee"}))
EVE = Actor(account="other", user="e1", roles=frozenset({"employee"}))
REPORT = {
    "key": "R1",
    "workflow": "expense_report",
    "title": "Lisbon offsite",
    "submitter": "u1",
    "lines": [
        {"description": "Hotel Avenida", "amount": "120.00"},
        {"description": "Taxi", "amount": "20.00"},
    ],
}


@dataclass
class Desk:
    """The runtime, its store and script, and the seeded report."""

    runtime: Runtime
    store: InMemoryStore
    script: ScriptedUnderstanding
    report: CaseRef

    async def say(self, text: str, operation: str, args: dict[str, Any]) -> TurnResult:
        """Run a text turn proposing one act ``a1`` of ``operation`` on the report."""

        def build(brief: Any) -> Understanding:
            handle = self.runtime.handle_for(brief.turn_id, self.report)
            act = SemanticAct(
                id="a1", operation=operation, target=ProposedTarget(handles=(handle,)), args=args
            )
            return Understanding(acts=(act,))

        self.script.push(build)
        return await self.runtime.run_turn(ANA, "c1", TurnInput(text=text), in_view=[self.report])

    async def click(
        self,
        card: Interaction | str,
        option: str,
        *,
        actor: Actor = ANA,
        conversation: str = "c1",
        expected: int | None = None,
    ) -> TurnResult:
        """Click ``option`` on ``card`` (expected revision: the card's own unless given)."""
        card_id = card if isinstance(card, str) else card.id
        shown = None if isinstance(card, str) else card.spec.bound_revision
        response = InteractionResponse(
            interaction_id=card_id,
            option_id=option,
            expected_revision=shown if expected is None else expected,
        )
        return await self.runtime.run_turn(
            actor, conversation, TurnInput(interaction_response=response)
        )

    async def lines(self) -> list[str]:
        """Return the descriptions of the report's lines as stored."""
        row = await self.store.load_case(self.report)
        assert row is not None
        return [line["description"] for line in row.state["lines"]]


async def desk() -> Desk:
    """Return a :class:`Desk` with the report ``R1`` seeded (two lines, a draft)."""
    store = InMemoryStore()
    script = ScriptedUnderstanding()
    runtime = Runtime(
        expenses_application(),
        store,
        script,
        clock=FixedClock(date(2026, 5, 1)),
        ids=SequentialIds(),
    )
    seeder = runtime.app.seeder
    assert seeder is not None
    workflow, state = seeder.seed_state(REPORT, {})
    report = await runtime.seed("acme", workflow, state, case_id="r1")
    return Desk(runtime=runtime, store=store, script=script, report=report)


def label(turn: TurnResult, item: str) -> str:
    """Return ``status:code`` (or ``status``) of ``item``'s result in ``turn``."""
    result = turn.results[item]
    return f"{result.status.value}:{result.code}" if result.code else result.status.value


def words(turn: TurnResult) -> list[str]:
    """Return the text of every block of ``turn``'s reply, in order."""
    return [block.text for block in turn.blocks]
