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

from consent.app import application
from consent.artifact import TERMS_2026_05, Artifact

ACTOR = Actor(account="acme", user="ana", roles=frozenset())
TODAY = date(2026, 5, 4)


class Bench:
    """A runtime over a store (fresh unless given), publishing ``artifact``.

    ``after=`` another bench: the same store and id source, as a redeployment has.
    """

    def __init__(self, artifact: Artifact = TERMS_2026_05, after: Bench | None = None) -> None:
        self.store = after.store if after is not None else InMemoryStore()
        self.ids = after.ids if after is not None else SequentialIds()
        self.script = ScriptedUnderstanding()
        self.clock = FixedClock(TODAY)
        self.runtime = Runtime(
            application(artifact), self.store, self.script, clock=self.clock, ids=self.ids
        )

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

    async def book(self, destination: str) -> Any:
        """Ask, as text, to book a trip to ``destination``."""
        return await self.say(
            f"Book a trip to {destination}", "booking.book", destination=destination
        )

    async def accept(self) -> CaseRef:
        """Ask to accept, click Confirm on the card; return the acceptance record."""
        asked = await self.say("I accept the terms", "terms.accept")
        (card,) = asked.interactions_created
        done = await self.click(card.id, "confirm", card.spec.bound_revision or 0)
        assert done.results["a1"].status.value == "committed", done.results
        return done.commands[0][1]

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
