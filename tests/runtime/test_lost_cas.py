"""I16: a click that loses the card's compare-and-set reports what the card actually became.

Deterministic interleavings of two tabs clicking one Confirm card: the late tab reads the
card while it is still open, then the other tab's click runs to the end, then the late
tab goes on (``Interleaved``: after the late tab's first read of the card). Before docs/adr/0016-races-and-turn-ids.md
the late Decline said "Cancelled: nothing was changed." after the booking committed, and a
late Confirm with the trip out of view answered "out of date" with a fresh card for the
booking that had already committed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

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
from turnframe.store import InMemoryStore, TurnStore
from turnframe.store.sqlite import SqliteStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
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
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
CONV = "c1"


class Interleaved:
    """A store whose next read of a card runs ``hook`` after reading it.

    The late tab's turn reads the clicked card once: with the open cards on screen
    (``open_interactions``, the load step) when it is open, else by id
    (``get_interaction``). Whichever read comes first runs the hook, so the other tab's
    click always finishes after the late tab saw the card open.
    """

    def __init__(self, inner: TurnStore) -> None:
        self._inner = inner
        self.hook: Callable[[], Awaitable[None]] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def _then(self, read: Any) -> Any:
        hook, self.hook = self.hook, None
        if hook is not None:
            await hook()
        return read

    async def open_interactions(self, account: str, conversation_id: str) -> Any:
        """Read the open cards, then let the other tab's click finish before returning them."""
        return await self._then(await self._inner.open_interactions(account, conversation_id))

    async def get_interaction(self, account: str, conversation_id: str, interaction_id: str) -> Any:
        """Read the card, then let the other tab's click finish before returning it."""
        card = await self._inner.get_interaction(account, conversation_id, interaction_id)
        return await self._then(card)


async def _setup(store: TurnStore) -> tuple[Runtime, Runtime, Interleaved, CaseRef, str]:
    app = travel_application()
    understander = ScriptedUnderstanding()
    early = Runtime(app, store, understander, clock=FixedClock(TODAY))
    late_store = Interleaved(store)
    late = Runtime(app, late_store, ScriptedUnderstanding(), clock=FixedClock(TODAY))  # type: ignore[arg-type]
    trip = await early.seed(ACTOR.account, "trip", dict(TRIP))

    def read(brief: Any) -> Understanding:
        handle = early.handle_for(brief.turn_id, trip)
        return Understanding(
            acts=(
                SemanticAct(
                    id="a1",
                    operation="trip.book_hotel",
                    target=ProposedTarget(handles=(handle,)),
                    args={"hotel": "Hotel Avenida", "nights": "2"},
                ),
            )
        )

    understander.push(read)
    proposed = await early.run_turn(ACTOR, CONV, TurnInput(text="Book Hotel Avenida"))
    (card,) = proposed.interactions_created
    return early, late, late_store, trip, card.id


def _click(card_id: str, option: str, revision: int = 1) -> TurnInput:
    return TurnInput(
        interaction_response=InteractionResponse(
            interaction_id=card_id, option_id=option, expected_revision=revision
        )
    )


async def _race(
    store: TurnStore, first: str, late_option: str, in_view: list[CaseRef] | None | str
) -> tuple[TurnResult, TurnStore, CaseRef, str]:
    early, late, late_store, trip, card_id = await _setup(store)
    row = await store.load_case(trip)
    assert row is not None

    async def other_tab() -> None:
        await early.run_turn(ACTOR, CONV, _click(card_id, first, row.revision))

    late_store.hook = other_tab
    view = [] if in_view == "none" else [trip] if in_view == "trip" else None
    result = await late.run_turn(
        ACTOR, CONV, _click(card_id, late_option, row.revision), in_view=view
    )
    return result, store, trip, card_id


def _text(result: TurnResult) -> str:
    return " ".join(str(getattr(b, "text", "")) for b in result.blocks)


async def _store(kind: str, tmp_path: Path) -> TurnStore:
    if kind == "memory":
        return InMemoryStore()
    return await SqliteStore.open(tmp_path / "lost.db")


KINDS = ["memory", "sqlite"]
VIEWS = ["all", "none", "trip"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("view", VIEWS)
def test_a_decline_that_loses_to_a_confirm_reports_the_booking(
    kind: str, view: str, tmp_path: Path
) -> None:
    async def main() -> None:
        result, store, trip, card_id = await _race(
            await _store(kind, tmp_path), "confirm", "decline", view
        )
        card = await store.get_interaction(ACTOR.account, CONV, card_id)
        assert card is not None and card.status is InteractionStatus.RESOLVED
        assert result.results["a1"].status.value == "committed"
        assert say("declined", "en") not in _text(result)
        assert say("already_resolved", "en") in _text(result)
        assert result.interactions_created == ()
        assert await store.load_reply(ACTOR.account, result.turn_id) == result.blocks
        booked = [e for e in await store.case_events(trip) if e.operation == "trip.book_hotel"]
        assert len(booked) == 1
        await store.close()

    anyio.run(main)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("view", VIEWS)
def test_a_confirm_that_loses_to_a_decline_reports_the_decline(
    kind: str, view: str, tmp_path: Path
) -> None:
    async def main() -> None:
        result, store, trip, card_id = await _race(
            await _store(kind, tmp_path), "decline", "confirm", view
        )
        card = await store.get_interaction(ACTOR.account, CONV, card_id)
        assert card is not None and card.status is InteractionStatus.DECLINED
        assert result.results["a1"].status.value == "no_change"
        assert say("already_resolved", "en") in _text(result)
        assert result.commands == () and result.interactions_created == ()
        assert not [e for e in await store.case_events(trip) if e.operation == "trip.book_hotel"]
        await store.close()

    anyio.run(main)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("view", VIEWS)
def test_a_duplicate_confirm_never_reissues_a_committed_command(
    kind: str, view: str, tmp_path: Path
) -> None:
    async def main() -> None:
        result, store, trip, card_id = await _race(
            await _store(kind, tmp_path), "confirm", "confirm", view
        )
        assert result.results["a1"].status.value == "committed"
        assert result.interactions_created == ()
        assert say("stale_no_reissue", "en") not in _text(result)
        assert await store.open_interactions(ACTOR.account, CONV) == []
        booked = [e for e in await store.case_events(trip) if e.operation == "trip.book_hotel"]
        assert len(booked) == 1
        await store.close()

    anyio.run(main)
