"""Run turns scripted: the understanding a model would propose, written in the test."""

from __future__ import annotations

from datetime import date
from typing import Any

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionResponse,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, SequentialIds
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

from helpdesk.app import application
from helpdesk.workflow import TicketWorkflow

ACTOR = Actor(account="acme", user="agent1", roles=frozenset({"agent"}))


def registration_problems() -> list[str]:
    """Return what registration finds wrong with the workflow (nothing, when it holds)."""
    return TicketWorkflow().registration_problems(application().locales)


class Bench:
    """A runtime over a fresh store, with helpers for scripted text turns and clicks."""

    def __init__(self) -> None:
        self.store = InMemoryStore()
        self.script = ScriptedUnderstanding()
        self.runtime = Runtime(
            application(),
            self.store,
            self.script,
            clock=FixedClock(date(2026, 5, 4)),
            ids=SequentialIds(),
        )

    async def seed(self, **state: Any) -> CaseRef:
        return await self.runtime.seed(ACTOR.account, "ticket", state)

    async def say(
        self, text: str, operation: str, targets: tuple[CaseRef, ...] = (), /, **args: str
    ) -> Any:
        def read(brief: Any) -> Understanding:
            handles = tuple(self.runtime.handle_for(brief.turn_id, case) for case in targets)
            target = (
                ProposedTarget(handles=handles, mention=text)
                if targets
                else ProposedTarget(new=True)
            )
            return Understanding(
                acts=(SemanticAct(id="a1", operation=operation, target=target, args=args),)
            )

        self.script.push(read)
        return await self.runtime.run_turn(ACTOR, "c1", TurnInput(text=text))

    async def click(self, card_id: str, option: str, revision: int) -> Any:
        response = InteractionResponse(
            interaction_id=card_id, option_id=option, expected_revision=revision
        )
        return await self.runtime.run_turn(ACTOR, "c1", TurnInput(interaction_response=response))

    async def state(self, case: CaseRef) -> dict[str, Any]:
        row = await self.store.load_case(case)
        assert row is not None
        return dict(row.state)


def words(result: Any) -> str:
    """Return every text of a turn's reply blocks, joined."""
    texts = []
    for block in result.blocks:
        texts.append(block.text)
        if block.kind == "interaction":
            texts += [option.label for option in block.options]
    return " ".join(t for t in texts if t)
