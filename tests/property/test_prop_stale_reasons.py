"""A stale click says why it is stale, truly, and commits nothing (I16, ADR 0003 rule 2).

A Confirm card bound to a trip is clicked after any mix of the three causes that make it
stale (``turnframe/runtime/reduce/stale.py``):

* ``moved``: the trip was renamed in an earlier turn (its revision is past the card's);
* ``touched``: the click's own message renames the trip;
* ``claimed``: the click sends an ``expected_revision`` other than the card's binding.

With none, the booking commits: the check is not vacuous. With any, the click is
``rejected:stale`` with the sentence of the first that holds (moved, then touched, then
claimed: the module's documented order), in the turn's locale; the reply carries none of
the other two sentences; no booking commits (only the message's own rename does); the
card is stored ``stale`` with ``rejected:stale``; and a second click on it commits nothing
and says ``already_stale``, which is true whichever cause closed the card.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import event as tally
from hypothesis import strategies as st

from turnframe.core import (
    Actor,
    CaseRef,
    InteractionResponse,
    InteractionStatus,
    ProposedTarget,
    SemanticAct,
    TurnInput,
    Understanding,
)
from turnframe.runtime import FixedClock, Runtime, TurnResult
from turnframe.runtime.copy import say
from turnframe.samples.travel import travel_application
from turnframe.store import InMemoryStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
CONV = "c1"
TRIP: dict[str, Any] = {
    "name": "Lisbon",
    "destination": "Lisbon",
    "start": "2026-05-12",
    "end": "2026-05-15",
    "travelers": [],
    "extras": [],
    "status": "planning",
    "next_extra": 1,
}
# The order the runtime documents: a fact about the stored record, then a change this
# message asks for, then the client's claim.
ORDER = (("moved", "stale_no_reissue"), ("touched", "stale_touched"), ("claimed", "stale_claimed"))


def _text(turn: TurnResult) -> str:
    parts: list[str] = []
    for block in turn.blocks:
        parts.append(getattr(block, "text", "") or getattr(block, "prompt", "") or "")
    return "\n".join(parts)


class Desk:
    """The travel runtime over memory, one trip and scripted understanding."""

    def __init__(self) -> None:
        self.store = InMemoryStore()
        self.script = ScriptedUnderstanding()
        self.runtime = Runtime(
            travel_application(), self.store, self.script, clock=FixedClock(TODAY)
        )
        self.trip: CaseRef | None = None

    async def seed(self) -> None:
        self.trip = await self.runtime.seed(ACTOR.account, "trip", dict(TRIP))

    def _push(self, act_id: str, operation: str, args: dict[str, str]) -> None:
        def read(brief: Any) -> Understanding:
            assert self.trip is not None
            handle = self.runtime.handle_for(brief.turn_id, self.trip)
            target = ProposedTarget(handles=(handle,))
            act = SemanticAct(id=act_id, operation=operation, target=target, args=args)
            return Understanding(acts=(act,))

        self.script.push(read)

    async def say(self, act_id: str, operation: str, args: dict[str, str], locale: str) -> Any:
        self._push(act_id, operation, args)
        return await self.runtime.run_turn(ACTOR, CONV, TurnInput(text=operation, locale=locale))

    async def click(
        self, card_id: str, expected: int | None, locale: str, rename: str | None = None
    ) -> TurnResult:
        response = InteractionResponse(
            interaction_id=card_id, option_id="confirm", expected_revision=expected
        )
        if rename is None:
            turn = TurnInput(interaction_response=response, locale=locale)
        else:
            self._push("t1", "trip.rename", {"name": rename})
            turn = TurnInput(text="and rename it", interaction_response=response, locale=locale)
        return await self.runtime.run_turn(ACTOR, CONV, turn)

    async def extras(self) -> list[Any]:
        assert self.trip is not None
        row = await self.store.load_case(self.trip)
        assert row is not None
        return list(row.state["extras"])


@settings(
    max_examples=80,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    moved=st.booleans(),
    touched=st.booleans(),
    expected=st.one_of(st.none(), st.integers(0, 4)),
    locale=st.sampled_from(["en", "pt-PT"]),
)
def test_a_stale_click_says_its_own_cause_and_commits_nothing(
    moved: bool, touched: bool, expected: int | None, locale: str
) -> None:
    """Each cause (and each mix of them) gets the first true sentence of ORDER; none commits."""
    desk = Desk()

    async def main() -> None:
        await desk.seed()
        asked = await desk.say(
            "a1", "trip.book_hotel", {"hotel": "Hotel Avenida", "nights": "2"}, locale
        )
        (card,) = asked.interactions_created
        bound = card.spec.bound_revision
        assert bound is not None and card.spec.kind.value == "confirm"
        if moved:
            renamed = await desk.say("r1", "trip.rename", {"name": "Lisbon in spring"}, locale)
            assert [op for op, _ in renamed.commands] == ["trip.rename"]
        claimed = expected is not None and expected != bound
        holds = {"moved": moved, "touched": touched, "claimed": claimed}
        tally("causes: " + (",".join(k for k, v in holds.items() if v) or "none"))
        clicked = await desk.click(
            card.id, expected, locale, rename="Lisbon Easter" if touched else None
        )
        renames = [("trip.rename", desk.trip)] if touched else []
        if not any(holds.values()):
            # Nothing makes the card stale: the same click books the hotel.
            assert list(clicked.commands) == [("trip.book_hotel", desk.trip)]
            assert [x["kind"] for x in await desk.extras()] == ["hotel"]
            return
        key = next(sentence for cause, sentence in ORDER if holds[cause])
        result = clicked.results["click"]
        assert (result.status.value, result.code) == ("rejected", "stale")
        assert result.sentence == say(key, locale)
        text = _text(clicked)
        assert say(key, locale) in text
        for _, other in ORDER:
            if other != key:
                assert say(other, locale) not in text, (other, text)
        assert list(clicked.commands) == renames  # the booking never commits
        assert await desk.extras() == []
        stored = await desk.store.get_interaction(ACTOR.account, CONV, card.id)
        assert stored is not None and stored.status is InteractionStatus.STALE
        assert stored.resolution is not None
        assert dict(stored.resolution.results) == {"click": "rejected:stale"}
        # The booking is still allowed, so a fresh card offers it (ADR 0014 rule 7).
        fresh = [c for c in clicked.interactions_created if c.spec.case == desk.trip]
        assert [c.spec.kind.value for c in fresh] == ["confirm"]

        again = await desk.click(card.id, expected, locale)
        assert again.commands == () and await desk.extras() == []
        replay = _text(again)
        assert say("already_stale", locale) in replay
        for _, sentence in ORDER:
            assert say(sentence, locale) not in replay, (sentence, replay)
        assert again.results["click"].code == "stale"
        after = await desk.store.get_interaction(ACTOR.account, CONV, card.id)
        assert after is not None and after.status is InteractionStatus.STALE

    anyio.run(main)


def test_each_stale_sentence_is_its_own_in_every_locale() -> None:
    """The three causes and the second click are four different sentences in each locale."""
    from turnframe.runtime.copy import TABLES
    from turnframe.runtime.reduce.stale import STALE_SENTENCES

    keys = [*STALE_SENTENCES.values(), "already_stale"]
    for locale, table in TABLES.items():
        sentences = [table[k] for k in keys]
        assert len(set(sentences)) == len(keys), locale
