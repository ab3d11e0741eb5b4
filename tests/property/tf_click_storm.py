"""A storm of racing clicks on Confirm cards, and the count of replies that contradict the store.

Each card books a hotel on its own trip. Several runtimes — each over its own store
connection, the browser tabs of one user — click the same card at once, each Confirm or
Decline, each with its own ``in_view`` (every record, none, only the trip). Afterwards the
card and the trip are read back and every click's reply is checked against them
(docs/invariants.md I13, I16; docs/adr/0016-races-and-turn-ids.md):

* the card ended ``resolved`` (the booking committed once) or ``declined`` (nothing booked);
* a click's result for the card's act is the card's own resolution, never the option it
  intended when another click won;
* no click says "Cancelled: nothing was changed." unless the card was declined, and no
  click draws a fresh card for a command that committed or was declined.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import anyio

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
from turnframe.store import TurnStore
from turnframe.understand import ScriptedUnderstanding

TODAY = date(2026, 5, 1)
ACTOR = Actor(account="acme", user="u1", roles=frozenset({"customer"}))
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
VIEWS = ("all", "none", "trip")


@dataclass(frozen=True, slots=True)
class Click:
    """One tab's click: the option and what that tab has in view."""

    option: str  # "confirm" | "decline"
    view: str  # one of VIEWS


@dataclass(slots=True)
class StormReport:
    """What a storm did: cards, clicks, and the replies that contradict the store."""

    cards: int = 0
    clicks: int = 0
    contradictions: list[str] = field(default_factory=list)
    contradicting: int = 0  # replies with at least one contradiction
    statuses: dict[str, int] = field(default_factory=dict)


def _in_view(view: str, trip: CaseRef) -> list[CaseRef] | None:
    return None if view == "all" else [] if view == "none" else [trip]


async def _propose(
    runtime: Runtime, understander: ScriptedUnderstanding, trip: CaseRef, conv: str
) -> str:
    def read(brief: Any) -> Understanding:
        handle = runtime.handle_for(brief.turn_id, trip)
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
    result = await runtime.run_turn(ACTOR, conv, TurnInput(text="Book Hotel Avenida"))
    (card,) = result.interactions_created
    return card.id


def contradictions(
    result: TurnResult, reply: Sequence[Any] | None, status: InteractionStatus, booked: int
) -> list[str]:
    """Return how one click's reply contradicts the card's final ``status`` and the trip."""
    out: list[str] = []
    text = " ".join(str(getattr(b, "text", "")) for b in (reply or ()))
    reported = result.results.get("a1")
    label = reported.status.value if reported is not None else None
    if booked != (1 if status is InteractionStatus.RESOLVED else 0):
        out.append(f"card {status.value} but {booked} booking(s) committed")
    if status is InteractionStatus.RESOLVED and label != "committed":
        out.append(f"booking committed, reply reports a1 {label}")
    click = result.results.get("click")
    unavailable = label is None and click is not None and click.code == "not_found"
    if status is InteractionStatus.DECLINED and label != "no_change" and not unavailable:
        # "no longer available" for a card already declined when the click read it is
        # true, if terse (a second click on a declined card is docs/adr/0012's to word).
        out.append(f"card declined, reply reports a1 {label}")
    if say("declined", "en") in text and status is not InteractionStatus.DECLINED:
        out.append(f"reply says declined while the card is {status.value}")
    if result.interactions_created:
        out.append(f"fresh card drawn while the card is {status.value}")
    if list(reply or ()) != list(result.blocks):
        out.append("stored reply differs from the returned one")
    return out


async def storm(
    stores: Sequence[TurnStore],
    plans: Sequence[Sequence[Click]],
    *,
    seed_store: TurnStore | None = None,
    on_click: Callable[[], Awaitable[None]] | None = None,
) -> StormReport:
    """Run one storm: card ``n`` gets the clicks ``plans[n]``, click ``k`` through ``stores[k % len]``.

    Every click of a card starts together (one task each); the cards follow one another.
    """
    app = travel_application()
    main = seed_store or stores[0]
    understander = ScriptedUnderstanding()
    proposer = Runtime(app, main, understander, clock=FixedClock(TODAY))
    tabs = [Runtime(app, s, ScriptedUnderstanding(), clock=FixedClock(TODAY)) for s in stores]
    report = StormReport()
    nonce = random.getrandbits(40)
    for n, plan in enumerate(plans):
        conv = f"storm-{nonce:x}-{n}"
        trip = await proposer.seed(ACTOR.account, "trip", dict(TRIP))
        card_id = await _propose(proposer, understander, trip, conv)
        row = await main.load_case(trip)
        assert row is not None
        got: list[TurnResult] = []
        async with anyio.create_task_group() as tg:
            for k, c in enumerate(plan):
                response = InteractionResponse(
                    interaction_id=card_id, option_id=c.option, expected_revision=row.revision
                )
                tg.start_soon(
                    _click, tabs[k % len(tabs)], conv, response, _in_view(c.view, trip), got
                )
        card = await main.get_interaction(ACTOR.account, conv, card_id)
        assert card is not None
        booked = sum(e.operation == "trip.book_hotel" for e in await main.case_events(trip))
        report.cards += 1
        report.statuses[card.status.value] = report.statuses.get(card.status.value, 0) + 1
        for result in got:
            report.clicks += 1
            reply = await main.load_reply(ACTOR.account, result.turn_id)
            problems = contradictions(result, reply, card.status, booked)
            report.contradicting += bool(problems)
            for problem in problems:
                report.contradictions.append(f"card {n} turn {result.turn_id}: {problem}")
    return report


async def _click(
    tab: Runtime,
    conv: str,
    response: InteractionResponse,
    in_view: list[CaseRef] | None,
    got: list[TurnResult],
) -> None:
    got.append(
        await tab.run_turn(ACTOR, conv, TurnInput(interaction_response=response), in_view=in_view)
    )


def random_plans(cards: int, clicks: int, rng: random.Random) -> list[list[Click]]:
    """Return ``cards`` storms of ``clicks`` clicks, each option and view drawn by ``rng``."""
    return [
        [Click(rng.choice(("confirm", "decline")), rng.choice(VIEWS)) for _ in range(clicks)]
        for _ in range(cards)
    ]


async def _main(kind: str, cards: int, tabs: int) -> None:
    """Count contradicting replies over ``cards`` storms of ``tabs`` clicks (ADR 0016)."""
    import os
    import tempfile

    from turnframe.store.sqlite import SqliteStore

    plans = random_plans(cards, tabs, random.Random(7))
    stores: list[TurnStore] = []
    schema = None
    if kind == "sqlite":
        path = Path(tempfile.mkdtemp()) / "storm.db"
        stores = [await SqliteStore.open(path, offload=True) for _ in range(tabs)]
    else:
        from turnframe.store.postgres import PostgresStore, migrate
        from turnframe.testing.postgres import TEST_DSN_VAR, drop_schema, new_schema_name

        dsn = os.environ[TEST_DSN_VAR]
        schema = new_schema_name("tf_storm")
        await migrate(dsn, schema=schema)
        stores = [await PostgresStore.open(dsn, schema=schema, max_size=2) for _ in range(tabs)]
    try:
        report = await storm(stores, plans)
    finally:
        for s in stores:
            await s.close()
        if schema is not None:
            await drop_schema(dsn, schema)
    print(
        f"{kind}: {report.cards} cards, {report.clicks} clicks, {report.statuses}, "
        f"{report.contradicting} replies contradict the store"
    )


if __name__ == "__main__":
    # python tests/property/tf_click_storm.py sqlite|postgres CARDS TABS
    import sys

    anyio.run(_main, sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
